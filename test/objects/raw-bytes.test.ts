/**
 * The raw byte routes (docs/objects.md "Raw bytes", decision 112) through the
 * real HTTP server, on SQLite and PostgreSQL: object put, multipart part and
 * inline execute with the bytes as an application/octet-stream body. Bodies
 * come back bit for bit; a body whose length or digest does not match what
 * the client declared — including one the client breaks off — is refused
 * and stores nothing: no work unit, plan, manifest, object version, part or
 * ledger event.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import { after, before, describe, test } from 'node:test';
import { corpusFile } from '../../bench/corpus/corpus-files.ts';
import { engines } from '../helpers/engines.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { IngestOffloadPool } from '../../src/svc/exact-bytes/ingest-offload.ts';
import { encodeFooter } from '../../src/svc/exact-bytes/body-footer.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
const MIN_PART = 64 * 1024;
const RAW_LIMIT = 8 * 1024 * 1024;
const TABLES = ['work_units', 'plans', 'manifests', 'objects', 'ledger_events', 'upload_parts', 'chunks'] as const;

/** Sends a request whose body stops after `sent` of the `declared` bytes, then hangs up; resolves with what came back. */
function truncatedRequest(url: string, method: string, route: string, headers: Record<string, string>, body: Uint8Array, declared: number): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let answer = '';
    socket.on('data', (d) => (answer += d.toString('latin1')));
    socket.on('error', () => resolve(answer));
    socket.on('close', () => resolve(answer));
    socket.on('connect', () => {
      const head = [`${method} ${route} HTTP/1.1`, `host: ${hostname}:${port}`, `content-length: ${declared}`, 'content-type: application/octet-stream', ...Object.entries(headers).map(([k, v]) => `${k}: ${v}`), '', ''].join('\r\n');
      socket.write(head);
      socket.write(body, () => setTimeout(() => socket.destroy(), 50));
    });
    setTimeout(() => reject(new Error('the server neither answered nor closed')), 10_000).unref();
  });
}

/**
 * Sends `body` chunked, with its length in X-SVC-Content-Length and the trailer the options say (decision 194),
 * as the CLI does; resolves with the status and the parsed answer.
 */
function chunkedRequest(url: string, method: string, route: string, headers: Record<string, string>, body: Uint8Array, options: { length?: number; announce?: boolean; trailer?: string }): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}${route}`, {
      method,
      headers: {
        'content-type': 'application/octet-stream',
        'transfer-encoding': 'chunked',
        ...(options.length === undefined ? {} : { 'x-svc-content-length': String(options.length) }),
        ...(options.announce === false ? {} : { trailer: 'X-SVC-Content-SHA256' }),
        ...headers,
      },
    });
    req.on('response', (res) => {
      let text = '';
      res.on('data', (d) => (text += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) }));
    });
    // The server may answer (and close) before the whole body went out: that answer counts.
    req.on('error', (err) => setTimeout(() => reject(err), 200));
    for (let at = 0; at < body.length; at += 1024 * 1024) req.write(body.subarray(at, at + 1024 * 1024));
    if (options.trailer !== undefined) req.addTrailers({ 'X-SVC-Content-SHA256': options.trailer });
    req.end();
  });
}

for (const engine of engines()) {
  describe(`raw byte routes on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    const raw = (method: string, route: string, bytes: Uint8Array, headers: Record<string, string> = {}, key: string = KEYS.acmeWriter) =>
      fetch(`${s.url}${route}`, { method, headers: { 'x-api-key': key, 'content-type': 'application/octet-stream', ...headers }, body: bytes });
    const json = async (res: Response, status: number) => {
      const text = await res.text();
      assert.equal(res.status, status, text);
      return JSON.parse(text) as any;
    };
    const counts = async () => {
      const out: Record<string, number> = {};
      for (const t of TABLES) out[t] = Number((await s.app.store.db.values(`SELECT COUNT(*) FROM ${t}`))[0]![0]);
      return out;
    };
    /** Runs `attempt` and asserts that it left every table as it was. */
    const storesNothing = async (attempt: () => Promise<void>) => {
      const before = await counts();
      await attempt();
      // A refused stream may still be settling its in-flight chunk writes; nothing it does may commit.
      await new Promise((r) => setTimeout(r, 300));
      assert.deepEqual(await counts(), before, 'nothing stored');
    };

    before(async () => {
      // The SLO guardrail off (its p95 set out of reach): multi-MiB bodies on a loaded machine trip it, and its
      // system ledger event would count as something a refused request stored.
      s = await startTestServer({ engine: engine.name, overrides: { 'multipart.min_part_bytes': MIN_PART, 'server.raw_body_limit_bytes': RAW_LIMIT, 'guardrail.latency_p95_ms': 3_600_000 } });
    });
    after(async () => s?.close());

    test('PUT /v1/s3/objects stores the raw body bit for bit', async () => {
      const data = corpusFile('log-like', 3 * 1024 * 1024 + 17, 'raw-put');
      const res = await raw('PUT', '/v1/s3/objects?bucket=raw&key=dir%2Fa%20b.log&content_type=text%2Fplain', data, { 'x-svc-content-sha256': sha256(data) });
      const put = await json(res, 201);
      assert.equal(put.output.sha256, sha256(data));
      assert.equal(put.size, data.length);
      assert.equal(put.key, 'dir/a b.log');
      assert.equal(res.headers.get('x-svc-manifest-id'), put.manifest_id);
      const got = await s.call('POST', '/v1/s3/objects/get', { key: KEYS.acmeWriter, body: { bucket: 'raw', key: 'dir/a b.log' } });
      assert.deepEqual(Buffer.from(await got.arrayBuffer()), data);
      const head = await json(await s.call('POST', '/v1/s3/objects/head', { key: KEYS.acmeWriter, body: { bucket: 'raw', key: 'dir/a b.log' } }), 200);
      assert.equal(head.content_type, 'text/plain');
      const wu = await json(await s.call('GET', `/v1/work-units/${put.work_unit_id}`, { key: KEYS.acmeWriter }), 200);
      assert.deepEqual([wu.state, wu.payload.size, wu.payload.sha256], ['executed', data.length, sha256(data)]);
    });

    test('without a declared digest the length is still checked and the work unit records the digest that arrived', async () => {
      const data = corpusFile('random', 100_000, 'raw-nodigest');
      const put = await json(await raw('PUT', '/v1/s3/objects?bucket=raw&key=nodigest.bin', data), 201);
      const wu = await json(await s.call('GET', `/v1/work-units/${put.work_unit_id}`, { key: KEYS.acmeWriter }), 200);
      assert.equal(wu.payload.sha256, sha256(data));
    });

    test('an empty body is an empty object', async () => {
      const put = await json(await raw('PUT', '/v1/s3/objects?bucket=raw&key=empty', new Uint8Array(0), { 'x-svc-content-sha256': sha256(new Uint8Array(0)) }), 201);
      assert.equal(put.size, 0);
    });

    test('a body whose digest is not the declared one is refused with digest_mismatch and stores nothing', async () => {
      const data = corpusFile('json', 500_000, 'raw-baddigest');
      await storesNothing(async () => {
        const body = await json(await raw('PUT', '/v1/s3/objects?bucket=raw&key=bad.json', data, { 'x-svc-content-sha256': 'a'.repeat(64) }), 400);
        assert.equal(body.error.code, 'invalid_request');
        assert.deepEqual([body.error.details.reason, body.error.details.declared_sha256, body.error.details.actual_sha256], ['digest_mismatch', 'a'.repeat(64), sha256(data)]);
        assert.match(body.error.message, /nothing was stored/);
      });
      const head = await s.call('POST', '/v1/s3/objects/head', { key: KEYS.acmeWriter, body: { bucket: 'raw', key: 'bad.json' } });
      assert.equal(head.status, 404);
    });

    test('a body that ends before its Content-Length (client hung up) stores nothing', async () => {
      const data = corpusFile('random', 2 * 1024 * 1024, 'raw-trunc');
      await storesNothing(async () => {
        const answer = await truncatedRequest(s.url, 'PUT', '/v1/s3/objects?bucket=raw&key=trunc.bin', { 'x-api-key': KEYS.acmeWriter }, data.subarray(0, 1024 * 1024), data.length);
        assert.doesNotMatch(answer, /^HTTP\/1\.1 2/, 'never acknowledged');
      });
      const again = await json(await raw('PUT', '/v1/s3/objects?bucket=raw&key=trunc.bin', data), 201);
      assert.equal(again.output.sha256, sha256(data), 'a retry of the same object succeeds');
    });

    // From 4 MiB, hashing and compression run on a worker thread (decision 189): same guarantees.
    test('a large body (offloaded to a worker) comes back bit for bit; a wrong digest or a broken-off one stores nothing', async () => {
      const data = Buffer.concat([corpusFile('log-like', 3 * 1024 * 1024, 'raw-large-a'), corpusFile('random', 2 * 1024 * 1024, 'raw-large-b'), corpusFile('json', 1024 * 1024 + 3, 'raw-large-c')]);
      const put = await json(await raw('PUT', '/v1/s3/objects?bucket=raw&key=large.bin', data, { 'x-svc-content-sha256': sha256(data) }), 201);
      assert.equal(put.output.sha256, sha256(data));
      assert.ok(put.details.bytes_stored < data.length * 0.7, `text compressed (${put.details.bytes_stored} of ${data.length})`);
      const back = await s.call('POST', `/v1/manifests/${put.manifest_id}/rehydrate`, { key: KEYS.acmeWriter, body: {} });
      assert.deepEqual(Buffer.from(await back.arrayBuffer()), data);
      const other = Buffer.from(data);
      other[5_000_000] = other[5_000_000]! ^ 1;
      await storesNothing(async () => {
        const bad = await json(await raw('PUT', '/v1/s3/objects?bucket=raw&key=large-bad.bin', other, { 'x-svc-content-sha256': sha256(data) }), 400);
        assert.equal(bad.error.details.reason, 'digest_mismatch');
        const answer = await truncatedRequest(s.url, 'PUT', '/v1/s3/objects?bucket=raw&key=large-trunc.bin', { 'x-api-key': KEYS.acmeWriter }, other.subarray(0, 5 * 1024 * 1024), other.length);
        assert.doesNotMatch(answer, /^HTTP\/1\.1 2/, 'never acknowledged');
      });
    });

    test('a chunked body with its digest in a trailer is stored bit for bit, in one pass, small or offloaded to the worker', async () => {
      for (const [name, data] of [['trailer-small.log', corpusFile('log-like', 300_000, 'raw-trailer-a')], ['trailer-large.bin', Buffer.concat([corpusFile('json', 3 * 1024 * 1024, 'raw-trailer-b'), corpusFile('random', 2 * 1024 * 1024, 'raw-trailer-c')])]] as const) {
        const put = await chunkedRequest(s.url, 'PUT', `/v1/s3/objects?bucket=raw&key=${name}`, { 'x-api-key': KEYS.acmeWriter }, data, { length: data.length, trailer: sha256(data) });
        assert.equal(put.status, 201, JSON.stringify(put.body));
        assert.deepEqual([put.body.output.sha256, put.body.size], [sha256(data), data.length]);
        const got = await s.call('POST', '/v1/s3/objects/get', { key: KEYS.acmeWriter, body: { bucket: 'raw', key: name } });
        assert.deepEqual(Buffer.from(await got.arrayBuffer()), data);
        const wu = await json(await s.call('GET', `/v1/work-units/${put.body.work_unit_id}`, { key: KEYS.acmeWriter }), 200);
        assert.equal(wu.payload.sha256, sha256(data));
      }
    });

    test('a chunked body whose trailer is wrong, missing or malformed, or whose length is not X-SVC-Content-Length, is refused and stores nothing', async () => {
      const data = corpusFile('log-like', 5 * 1024 * 1024 + 5, 'raw-trailer-bad');
      const put = (key: string, options: Parameters<typeof chunkedRequest>[5], headers: Record<string, string> = {}) =>
        chunkedRequest(s.url, 'PUT', `/v1/s3/objects?bucket=raw&key=${key}`, { 'x-api-key': KEYS.acmeWriter, ...headers }, data, options);
      await storesNothing(async () => {
        const wrong = await put('t-wrong', { length: data.length, trailer: sha256(data.subarray(1)) });
        assert.deepEqual([wrong.status, wrong.body.error.details.reason, wrong.body.error.details.actual_sha256], [400, 'digest_mismatch', sha256(data)]);
        const missing = await put('t-missing', { length: data.length });
        assert.deepEqual([missing.status, missing.body.error.details.reason], [400, 'digest_missing']);
        const malformed = await put('t-malformed', { length: data.length, trailer: 'not-a-digest' });
        assert.deepEqual([malformed.status, malformed.body.error.details.reason], [400, 'digest_missing']);
        const longer = await put('t-longer', { length: data.length - 1, trailer: sha256(data) });
        assert.deepEqual([longer.status, longer.body.error.details.reason], [400, 'length_mismatch']);
        const shorter = await put('t-shorter', { length: data.length + 1, trailer: sha256(data) });
        assert.deepEqual([shorter.status, shorter.body.error.details.reason], [400, 'length_mismatch']);
        const twice = await put('t-twice', { length: data.length, trailer: sha256(data) }, { 'x-svc-content-sha256': sha256(data) });
        assert.deepEqual([twice.status, twice.body.error.details.reason], [400, 'digest_declared_twice']);
        const noLength = await put('t-nolength', { trailer: sha256(data) });
        assert.deepEqual([noLength.status, noLength.body.error.details.reason, noLength.body.error.details.header], [400, 'length_required', 'x-svc-content-length']);
      });
      for (const key of ['t-wrong', 't-missing', 't-longer', 't-shorter']) {
        assert.equal((await s.call('POST', '/v1/s3/objects/head', { key: KEYS.acmeWriter, body: { bucket: 'raw', key } })).status, 404, key);
      }
      // Without an announced trailer, a chunked body with its length declared is checked for its length alone.
      const plain = await put('t-plain', { length: data.length, announce: false });
      assert.deepEqual([plain.status, plain.body.output.sha256], [201, sha256(data)]);
    });

    test('raw parts and raw execute take a trailing digest too', async () => {
      const data = corpusFile('json', 2 * MIN_PART + 77, 'raw-trailer-mp');
      const created = await json(await s.call('POST', '/v1/s3/multipart/create', { key: KEYS.acmeWriter, body: { bucket: 'raw', key: 'trailer-mp.json' } }), 201);
      const pieces = [data.subarray(0, MIN_PART), data.subarray(MIN_PART)];
      const route = (n: number) => `/v1/s3/multipart/part?upload_id=${created.upload_id}&part_number=${n}`;
      await storesNothing(async () => {
        const bad = await chunkedRequest(s.url, 'PUT', route(1), { 'x-api-key': KEYS.acmeWriter }, pieces[0]!, { length: MIN_PART, trailer: sha256(pieces[1]!) });
        assert.deepEqual([bad.status, bad.body.error.details.reason], [400, 'digest_mismatch']);
      });
      for (const n of [1, 2]) {
        const r = await chunkedRequest(s.url, 'PUT', route(n), { 'x-api-key': KEYS.acmeWriter }, pieces[n - 1]!, { length: pieces[n - 1]!.length, trailer: sha256(pieces[n - 1]!) });
        assert.deepEqual([r.status, r.body.sha256], [200, sha256(pieces[n - 1]!)]);
      }
      const done = await json(await s.call('POST', '/v1/s3/multipart/complete', { key: KEYS.acmeWriter, body: { upload_id: created.upload_id, parts: [1, 2].map((n) => ({ part_number: n, sha256: sha256(pieces[n - 1]!) })) } }), 200);
      assert.equal(done.output.sha256, sha256(data));
      const exec = await chunkedRequest(s.url, 'POST', '/v1/work-units/execute/raw?logical_ref=s3%3A%2F%2Fraw%2Ftrailer-exec', { 'x-api-key': KEYS.acmeWriter }, data, { length: data.length, trailer: sha256(data) });
      assert.deepEqual([exec.status, exec.body.output.sha256], [200, sha256(data)]);
      await storesNothing(async () => {
        const bad = await chunkedRequest(s.url, 'POST', '/v1/work-units/execute/raw?logical_ref=s3%3A%2F%2Fraw%2Ftrailer-exec-bad', { 'x-api-key': KEYS.acmeWriter }, data, { length: data.length });
        assert.deepEqual([bad.status, bad.body.error.details.reason], [400, 'digest_missing']);
      });
    });

    test('a body of unknown length with its length and digest in a footer is stored bit for bit, chunked or with Content-Length, on every raw route', async () => {
      const footed = (data: Uint8Array, length = data.length, digest = sha256(data)) => Buffer.concat([data, encodeFooter(length, digest)]);
      const small = corpusFile('log-like', 300_000, 'raw-footer-a');
      const large = Buffer.concat([corpusFile('json', 3 * 1024 * 1024, 'raw-footer-b'), corpusFile('random', 2 * 1024 * 1024, 'raw-footer-c')]);
      for (const [name, data] of [['footer-small.log', small], ['footer-large.bin', large], ['footer-empty', new Uint8Array(0)]] as const) {
        const put = await chunkedRequest(s.url, 'PUT', `/v1/s3/objects?bucket=raw&key=${name}`, { 'x-api-key': KEYS.acmeWriter, 'x-svc-content-footer': 'sha256' }, footed(data), { announce: false });
        assert.equal(put.status, 201, JSON.stringify(put.body));
        assert.deepEqual([put.body.output.sha256, put.body.size], [sha256(data), data.length]);
        const got = await s.call('POST', '/v1/s3/objects/get', { key: KEYS.acmeWriter, body: { bucket: 'raw', key: name } });
        assert.deepEqual(Buffer.from(await got.arrayBuffer()), Buffer.from(data));
        const wu = await json(await s.call('GET', `/v1/work-units/${put.body.work_unit_id}`, { key: KEYS.acmeWriter }), 200);
        assert.deepEqual([wu.payload.sha256, wu.payload.size], [sha256(data), data.length], 'the work unit records what arrived');
      }
      // A footer behind a Content-Length (what a de-chunking proxy forwards) works the same.
      const viaProxy = await json(await raw('POST', '/v1/work-units/execute/raw?logical_ref=s3%3A%2F%2Fraw%2Ffooter-exec', footed(small), { 'x-svc-content-footer': 'sha256' }), 200);
      assert.equal(viaProxy.output.sha256, sha256(small));
      const created = await json(await s.call('POST', '/v1/s3/multipart/create', { key: KEYS.acmeWriter, body: { bucket: 'raw', key: 'footer-mp.bin' } }), 201);
      const parts = [large.subarray(0, MIN_PART), large.subarray(MIN_PART, MIN_PART + 1000)];
      for (const [i, part] of parts.entries()) {
        const r = await chunkedRequest(s.url, 'PUT', `/v1/s3/multipart/part?upload_id=${created.upload_id}&part_number=${i + 1}`, { 'x-api-key': KEYS.acmeWriter, 'x-svc-content-footer': 'sha256' }, footed(part), { announce: false });
        assert.deepEqual([r.status, r.body.sha256, r.body.size], [200, sha256(part), part.length]);
      }
      const done = await json(await s.call('POST', '/v1/s3/multipart/complete', { key: KEYS.acmeWriter, body: { upload_id: created.upload_id, parts: parts.map((p, i) => ({ part_number: i + 1, sha256: sha256(p) })) } }), 200);
      assert.equal(done.output.sha256, sha256(Buffer.concat(parts)));
    });

    test('a footed body whose footer is missing or wrong, that runs past the limit, or that declares its length or digest twice, is refused and stores nothing', async () => {
      const data = corpusFile('log-like', 5 * 1024 * 1024 + 5, 'raw-footer-bad');
      const put = (key: string, body: Uint8Array, headers: Record<string, string> = {}) =>
        chunkedRequest(s.url, 'PUT', `/v1/s3/objects?bucket=raw&key=${key}`, { 'x-api-key': KEYS.acmeWriter, 'x-svc-content-footer': 'sha256', ...headers }, body, { announce: false });
      await storesNothing(async () => {
        const wrong = await put('f-wrong', Buffer.concat([data, encodeFooter(data.length, sha256(data.subarray(1)))]));
        assert.deepEqual([wrong.status, wrong.body.error.details.reason, wrong.body.error.details.actual_sha256], [400, 'digest_mismatch', sha256(data)]);
        const longer = await put('f-length', Buffer.concat([data, encodeFooter(data.length - 1, sha256(data))]));
        assert.deepEqual([longer.status, longer.body.error.details.reason], [400, 'length_mismatch']);
        const none = await put('f-none', data);
        assert.deepEqual([none.status, none.body.error.details.reason], [400, 'footer_missing']);
        const tooLarge = await put('f-large', Buffer.concat([data, data, encodeFooter(2 * data.length, sha256(Buffer.concat([data, data])))]));
        assert.deepEqual([tooLarge.status, tooLarge.body.error.code], [413, 'payload_too_large']);
        const twice = await put('f-twice', Buffer.concat([data, encodeFooter(data.length, sha256(data))]), { 'x-svc-content-sha256': sha256(data) });
        assert.deepEqual([twice.status, twice.body.error.details.reason], [400, 'digest_declared_twice']);
        const lengthTwice = await put('f-length-twice', Buffer.concat([data, encodeFooter(data.length, sha256(data))]), { 'x-svc-content-length': String(data.length) });
        assert.deepEqual([lengthTwice.status, lengthTwice.body.error.details.reason], [400, 'length_declared_twice']);
        const scheme = await put('f-scheme', Buffer.concat([data, encodeFooter(data.length, sha256(data))]), { 'x-svc-content-footer': 'md5' });
        assert.deepEqual([scheme.status, scheme.body.error.details.header], [400, 'x-svc-content-footer']);
        const overByLength = await json(await raw('PUT', '/v1/s3/objects?bucket=raw&key=f-cl', Buffer.concat([data, data]), { 'x-svc-content-footer': 'sha256' }), 413);
        assert.equal(overByLength.error.code, 'payload_too_large');
        const answer = await truncatedRequest(s.url, 'PUT', '/v1/s3/objects?bucket=raw&key=f-trunc', { 'x-api-key': KEYS.acmeWriter, 'x-svc-content-footer': 'sha256' }, data.subarray(0, 4 * 1024 * 1024), data.length + 44);
        assert.doesNotMatch(answer, /^HTTP\/1\.1 2/, 'never acknowledged');
      });
      for (const key of ['f-wrong', 'f-length', 'f-none', 'f-large', 'f-trunc']) {
        assert.equal((await s.call('POST', '/v1/s3/objects/head', { key: KEYS.acmeWriter, body: { bucket: 'raw', key } })).status, 404, key);
      }
    });

    test('a trailer announced on a body with Content-Length (what a de-chunking proxy such as nginx forwards) is refused and stores nothing', async () => {
      await storesNothing(async () => {
        const res = await raw('PUT', '/v1/s3/objects?bucket=raw&key=t-cl', new Uint8Array(3), { trailer: 'X-SVC-Content-SHA256', 'x-svc-content-length': '3' });
        const body = await json(res, 400);
        assert.deepEqual([body.error.details.header, body.error.details.reason], ['trailer', 'digest_missing']);
        assert.match(body.error.message, /proxy/);
      });
    });

    test('a chunked body without X-SVC-Content-Length (no Content-Length) is refused with length_required', async () => {
      await storesNothing(async () => {
        const stream = new ReadableStream({ start: (c) => (c.enqueue(new Uint8Array(10)), c.close()) });
        const res = await fetch(`${s.url}/v1/s3/objects?bucket=raw&key=chunked`, { method: 'PUT', headers: { 'x-api-key': KEYS.acmeWriter, 'content-type': 'application/octet-stream' }, body: stream, duplex: 'half' } as RequestInit);
        const body = await json(res, 400);
        assert.equal(body.error.details.reason, 'length_required');
      });
    });

    test('a declared length over server.raw_body_limit_bytes is refused before reading', async () => {
      await storesNothing(async () => {
        const answer = await truncatedRequest(s.url, 'PUT', '/v1/s3/objects?bucket=raw&key=huge', { 'x-api-key': KEYS.acmeWriter }, new Uint8Array(10), RAW_LIMIT + 1);
        assert.match(answer, /^HTTP\/1\.1 413/);
        assert.match(answer, /"payload_too_large"/);
      });
    });

    test('bad declarations, queries and content types get the spec error body', async () => {
      const data = new Uint8Array([1, 2, 3]);
      const cases: Array<[string, Response, number, string]> = [
        ['a digest that is not hex', await raw('PUT', '/v1/s3/objects?bucket=raw&key=x', data, { 'x-svc-content-sha256': 'xyz' }), 400, 'invalid_request'],
        ['a missing key', await raw('PUT', '/v1/s3/objects?bucket=raw', data), 400, 'invalid_request'],
        ['a repeated key', await raw('PUT', '/v1/s3/objects?bucket=raw&key=a&key=b', data), 400, 'invalid_request'],
        ['JSON on the raw route', await fetch(`${s.url}/v1/s3/objects?bucket=raw&key=x`, { method: 'PUT', headers: { 'x-api-key': KEYS.acmeWriter, 'content-type': 'application/json' }, body: '{}' }), 400, 'invalid_request'],
        ['another tenant', await raw('PUT', '/v1/s3/objects?bucket=raw&key=x&tenant=globex', data), 403, 'tenant_forbidden'],
        ['a reader', await raw('PUT', '/v1/s3/objects?bucket=raw&key=x', data, {}, KEYS.acmeReader), 403, 'forbidden'],
        ['octet-stream on a JSON route', await raw('POST', '/v1/s3/objects', data), 400, 'invalid_request'],
      ];
      for (const [what, res, status, code] of cases) {
        const body = (await res.json()) as any;
        assert.equal(res.status, status, `${what}: ${JSON.stringify(body)}`);
        assert.equal(body.error.code, code, what);
      }
    });

    test('raw parts complete into the exact object; a wrong or broken-off re-upload leaves the earlier part in place', async () => {
      const data = corpusFile('log-like', 2 * MIN_PART + 999, 'raw-mp');
      const pieces = [data.subarray(0, MIN_PART), data.subarray(MIN_PART, 2 * MIN_PART), data.subarray(2 * MIN_PART)];
      const created = await json(await s.call('POST', '/v1/s3/multipart/create', { key: KEYS.acmeWriter, body: { bucket: 'raw', key: 'mp.log' } }), 201);
      const part = (n: number, bytes: Uint8Array, headers: Record<string, string> = {}) => raw('PUT', `/v1/s3/multipart/part?upload_id=${created.upload_id}&part_number=${n}`, bytes, headers);
      const digests: string[] = [];
      for (const n of [2, 1, 3]) {
        const r = await json(await part(n, pieces[n - 1]!, { 'x-svc-content-sha256': sha256(pieces[n - 1]!) }), 200);
        assert.deepEqual([r.part_number, r.size, r.sha256], [n, pieces[n - 1]!.length, sha256(pieces[n - 1]!)]);
        digests[n] = r.sha256;
      }
      await storesNothing(async () => {
        const wrong = await json(await part(2, corpusFile('random', MIN_PART, 'raw-mp-wrong'), { 'x-svc-content-sha256': sha256(pieces[1]!) }), 400);
        assert.equal(wrong.error.details.reason, 'digest_mismatch');
        const answer = await truncatedRequest(s.url, 'PUT', `/v1/s3/multipart/part?upload_id=${created.upload_id}&part_number=2`, { 'x-api-key': KEYS.acmeWriter }, pieces[0]!.subarray(0, 1000), MIN_PART);
        assert.doesNotMatch(answer, /^HTTP\/1\.1 2/);
      });
      const done = await json(await s.call('POST', '/v1/s3/multipart/complete', { key: KEYS.acmeWriter, body: { upload_id: created.upload_id, parts: [1, 2, 3].map((n) => ({ part_number: n, sha256: digests[n] })) } }), 200);
      assert.equal(done.output.sha256, sha256(data));
      const got = await s.call('POST', '/v1/s3/objects/get', { key: KEYS.acmeWriter, body: { bucket: 'raw', key: 'mp.log' } });
      assert.deepEqual(Buffer.from(await got.arrayBuffer()), data);
    });

    test('a large multipart completion (size known from its parts) is hashed and compressed on the ingest worker, bit for bit', async () => {
      const pool = IngestOffloadPool.shared();
      const before = pool.counts.batches;
      const data = corpusFile('json', 5 * 1024 * 1024 + 123, 'raw-mp-large');
      const half = Math.floor(data.length / 2);
      const pieces = [data.subarray(0, half), data.subarray(half)];
      const created = await json(await s.call('POST', '/v1/s3/multipart/create', { key: KEYS.acmeWriter, body: { bucket: 'raw', key: 'mp-large.json' } }), 201);
      const digests: string[] = [];
      for (const n of [1, 2]) {
        const r = await json(await raw('PUT', `/v1/s3/multipart/part?upload_id=${created.upload_id}&part_number=${n}`, pieces[n - 1]!, { 'x-svc-content-sha256': sha256(pieces[n - 1]!) }), 200);
        digests[n] = r.sha256;
      }
      const done = await json(await s.call('POST', '/v1/s3/multipart/complete', { key: KEYS.acmeWriter, body: { upload_id: created.upload_id, parts: [1, 2].map((n) => ({ part_number: n, sha256: digests[n] })) } }), 200);
      assert.equal(done.output.sha256, sha256(data));
      assert.ok(IngestOffloadPool.shared().counts.batches > before, 'the completion went through the ingest worker');
      const got = await s.call('POST', '/v1/s3/objects/get', { key: KEYS.acmeWriter, body: { bucket: 'raw', key: 'mp-large.json' } });
      assert.deepEqual(Buffer.from(await got.arrayBuffer()), data);
    });

    test('a raw part over multipart.max_part_bytes or with a bad part number is refused', async () => {
      const created = await json(await s.call('POST', '/v1/s3/multipart/create', { key: KEYS.acmeWriter, body: { bucket: 'raw', key: 'mp2' } }), 201);
      const bad = await json(await raw('PUT', `/v1/s3/multipart/part?upload_id=${created.upload_id}&part_number=0`, new Uint8Array(1)), 400);
      assert.equal(bad.error.code, 'invalid_request');
      const unknown = await json(await raw('PUT', '/v1/s3/multipart/part?upload_id=up_00000000000000000000000000&part_number=1', new Uint8Array(1)), 404);
      assert.equal(unknown.error.code, 'not_found');
    });

    test('POST /v1/work-units/execute/raw executes a byte_object from the raw body', async () => {
      const data = corpusFile('json', 1_500_000, 'raw-exec');
      const q = new URLSearchParams({ logical_ref: 's3://raw/exec.json', mode: 'enforce', metadata: JSON.stringify({ owner: 'alice' }) });
      const res = await raw('POST', `/v1/work-units/execute/raw?${q}`, data, { 'x-svc-content-sha256': sha256(data) });
      const result = await json(res, 200);
      assert.equal(result.output.sha256, sha256(data));
      assert.equal(result.mode, 'enforce');
      assert.equal(res.headers.get('x-svc-work-unit-id'), result.work_unit_id);
      const wu = await json(await s.call('GET', `/v1/work-units/${result.work_unit_id}`, { key: KEYS.acmeWriter }), 200);
      assert.deepEqual([wu.state, wu.logical_ref, wu.metadata.owner, wu.payload.size], ['executed', 's3://raw/exec.json', 'alice', data.length]);
      const back = await s.call('POST', `/v1/manifests/${result.manifest_id}/rehydrate`, { key: KEYS.acmeWriter, body: {} });
      assert.deepEqual(Buffer.from(await back.arrayBuffer()), data);
      const events = await json(await s.call('POST', '/v1/ledger/query', { body: { tenant: 'acme', event_types: ['work_unit.created', 'plan.created', 'manifest.written'] } }), 200);
      assert.deepEqual(events.events.filter((e: any) => e.work_unit_id === result.work_unit_id).map((e: any) => e.type), ['work_unit.created', 'plan.created', 'manifest.written']);
    });

    test('raw execute refuses a mismatched or broken-off body and stores nothing', async () => {
      const data = corpusFile('random', 700_000, 'raw-exec-bad');
      await storesNothing(async () => {
        const bad = await json(await raw('POST', '/v1/work-units/execute/raw?logical_ref=s3%3A%2F%2Fraw%2Fx', data, { 'x-svc-content-sha256': sha256(data.subarray(1)) }), 400);
        assert.equal(bad.error.details.reason, 'digest_mismatch');
        const answer = await truncatedRequest(s.url, 'POST', '/v1/work-units/execute/raw?logical_ref=s3%3A%2F%2Fraw%2Fy', { 'x-api-key': KEYS.acmeWriter }, data.subarray(0, 300_000), data.length);
        assert.doesNotMatch(answer, /^HTTP\/1\.1 2/);
        const noRef = await json(await raw('POST', '/v1/work-units/execute/raw', data), 400);
        assert.equal(noRef.error.code, 'invalid_work_unit');
        const badMeta = await json(await raw('POST', '/v1/work-units/execute/raw?logical_ref=s3%3A%2F%2Fraw%2Fz&metadata=%7Bnope', data), 400);
        assert.equal(badMeta.error.code, 'invalid_work_unit');
      });
    });
  });
}
