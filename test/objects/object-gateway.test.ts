/**
 * The object gateway through the real HTTP server, on SQLite and PostgreSQL:
 * bit-exact round trips of every corpus kind, ranges, dedupe on a second put,
 * delete under policy, tombstones in lists, pagination, and bad input that
 * must leave nothing behind.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { CORPUS_KINDS, corpusFile } from '../../bench/corpus/corpus-files.ts';
import { engines } from '../helpers/engines.ts';
import { ADMIN_KEY, KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { deleteAllowedBundle } from '../helpers/policy-bundles.ts';

const b64 = (bytes: Uint8Array) => Buffer.from(bytes).toString('base64');
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

async function bytesOf(res: Response): Promise<Buffer> {
  return Buffer.from(await res.arrayBuffer());
}

async function errorCode(res: Response): Promise<string> {
  return ((await res.json()) as { error: { code: string } }).error.code;
}

const DELETE_BUNDLE = deleteAllowedBundle('scratch');

for (const engine of engines()) {
  describe(`object gateway on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    const writer = { key: KEYS.acmeWriter };
    const put = (body: Record<string, unknown>, key: string = KEYS.acmeWriter) => s.call('POST', '/v1/s3/objects', { key, body });

    before(async () => {
      s = await startTestServer({ engine: engine.name, overrides: { 'server.body_limit_bytes': 4 * 1024 * 1024 } });
    });
    after(async () => s?.close());

    test('every corpus kind round-trips bit for bit through put and get', async () => {
      for (const kind of CORPUS_KINDS) {
        const data = corpusFile(kind, 300_000, `gw-${kind}`);
        const res = await put({ bucket: 'corpus', key: `${kind}.bin`, body_base64: b64(data) });
        assert.equal(res.status, 201, kind);
        const result = (await res.json()) as any;
        assert.equal(result.output.sha256, sha256(data));
        assert.equal(result.details.bytes_in, data.length);
        assert.match(result.work_unit_id, /^wu_/);
        assert.equal(res.headers.get('x-svc-work-unit-id'), result.work_unit_id);
        assert.equal(res.headers.get('x-svc-manifest-id'), result.manifest_id);
        const got = await s.call('POST', '/v1/s3/objects/get', { ...writer, body: { bucket: 'corpus', key: `${kind}.bin` } });
        assert.equal(got.status, 200);
        assert.equal(got.headers.get('content-type'), 'application/octet-stream');
        assert.deepEqual(await bytesOf(got), data, kind);
      }
    });

    test('text bodies are stored as UTF-8 and head reports size and digest', async () => {
      const text = 'héllo, wörld\n';
      assert.equal((await put({ bucket: 'notes', key: 'a.txt', body_text: text, content_type: 'text/plain' })).status, 201);
      const head = (await (await s.call('POST', '/v1/s3/objects/head', { ...writer, body: { bucket: 'notes', key: 'a.txt' } })).json()) as any;
      assert.equal(head.size, Buffer.byteLength(text));
      assert.equal(head.sha256, sha256(Buffer.from(text)));
      assert.equal(head.content_type, 'text/plain');
    });

    test('ranges are exact: first and last byte, suffix, open, across chunk boundaries, random', async () => {
      const data = corpusFile('random', 600_000, 'gw-ranges');
      const created = (await (await put({ bucket: 'ranges', key: 'r.bin', body_base64: b64(data) })).json()) as any;
      const manifest = (await (await s.call('GET', `/v1/manifests/${created.manifest_id}`, writer)).json()) as any;
      assert.ok(manifest.chunks.length >= 3, 'the object spans several chunks');
      const boundary = manifest.chunks[1].offset;
      const cases: Array<[Record<string, number>, number, number]> = [
        [{ start: 0, end: 0 }, 0, 1],
        [{ start: data.length - 1, end: data.length - 1 }, data.length - 1, data.length],
        [{ suffix: 10 }, data.length - 10, data.length],
        [{ start: data.length - 100 }, data.length - 100, data.length],
        [{ start: boundary - 5, end: boundary + 5 }, boundary - 5, boundary + 6],
      ];
      let seed = 99;
      for (let k = 0; k < 10; k++) {
        seed = (seed * 1103515245 + 12345) % 2 ** 31;
        const start = seed % data.length;
        cases.push([{ start, end: start + (seed % 150_000) }, start, Math.min(start + (seed % 150_000) + 1, data.length)]);
      }
      for (const [range, from, to] of cases) {
        const res = await s.call('POST', '/v1/s3/objects/range', { ...writer, body: { bucket: 'ranges', key: 'r.bin', range } });
        assert.equal(res.status, 206, JSON.stringify(range));
        assert.equal(res.headers.get('content-range'), `bytes ${from}-${to - 1}/${data.length}`);
        assert.deepEqual(await bytesOf(res), data.subarray(from, to), JSON.stringify(range));
      }
      const unsatisfiable = await s.call('POST', '/v1/s3/objects/range', { ...writer, body: { bucket: 'ranges', key: 'r.bin', range: { start: data.length } } });
      assert.equal(unsatisfiable.status, 416);
      assert.equal(await errorCode(unsatisfiable), 'range_not_satisfiable');
      const negative = await s.call('POST', '/v1/s3/objects/range', { ...writer, body: { bucket: 'ranges', key: 'r.bin', range: { start: -5, end: 10 } } });
      assert.equal(negative.status, 400);
    });

    test('a second put of the same bytes stores nothing new', async () => {
      const data = corpusFile('json', 400_000, 'gw-dedupe');
      const first = (await (await put({ bucket: 'dedupe', key: 'one.json', body_base64: b64(data) })).json()) as any;
      const second = (await (await put({ bucket: 'dedupe', key: 'two.json', body_base64: b64(data) })).json()) as any;
      assert.ok(first.details.bytes_stored > 0);
      assert.equal(second.details.bytes_stored, 0);
      assert.equal(second.details.bytes_deduplicated, data.length);
    });

    test('another tenant cannot read an object, and its own put of the same bytes is not deduplicated against it', async () => {
      const data = corpusFile('random', 100_000, 'gw-tenants');
      await put({ bucket: 'shared', key: 'x', body_base64: b64(data) });
      const foreign = await s.call('POST', '/v1/s3/objects/get', { key: KEYS.globexWriter, body: { bucket: 'shared', key: 'x' } });
      assert.equal(foreign.status, 404);
      const crossTenant = await s.call('POST', '/v1/s3/objects/get', { key: KEYS.globexWriter, body: { tenant: 'acme', bucket: 'shared', key: 'x' } });
      assert.equal(crossTenant.status, 403);
      const theirs = (await (await put({ bucket: 'shared', key: 'x', body_base64: b64(data) }, KEYS.globexWriter)).json()) as any;
      assert.equal(theirs.details.bytes_stored, data.length);
    });

    test('delete without a policy allowing it is denied and audited', async () => {
      await put({ bucket: 'keep', key: 'k', body_text: 'precious' });
      const res = await s.call('POST', '/v1/s3/objects/delete', { key: ADMIN_KEY, body: { tenant: 'acme', bucket: 'keep', key: 'k' } });
      assert.equal(res.status, 403);
      const body = (await res.json()) as any;
      assert.equal(body.error.code, 'policy_denied');
      assert.equal(body.error.retryable, false);
      assert.match(body.error.policy_bundle_id, /^pb_/);
      const still = await s.call('POST', '/v1/s3/objects/get', { ...writer, body: { bucket: 'keep', key: 'k' } });
      assert.equal(await still.text(), 'precious');
      const events = (await (await s.call('POST', '/v1/ledger/query', { key: ADMIN_KEY, body: { tenant: 'acme', event_types: ['object.delete.denied'] } })).json()) as any;
      assert.ok(events.events.length >= 1);
    });

    test('an allowed delete tombstones the object: hidden from get and list, listed with include_tombstoned, manifest still rehydrates', async () => {
      const publish = await s.call('POST', '/v1/policies/bundles/default/publish', { key: ADMIN_KEY, body: { document: DELETE_BUNDLE } });
      assert.ok(publish.status === 201 || publish.status === 200, await publish.clone().text());
      const created = (await (await put({ bucket: 'scratch', key: 'tmp.txt', body_text: 'temporary' })).json()) as any;
      await put({ bucket: 'scratch', key: 'other.txt', body_text: 'stays' });
      const del = await s.call('POST', '/v1/s3/objects/delete', { key: ADMIN_KEY, body: { tenant: 'acme', bucket: 'scratch', key: 'tmp.txt' } });
      assert.equal(del.status, 200, await del.clone().text());
      assert.equal(((await del.json()) as any).state, 'tombstoned');
      assert.equal((await s.call('POST', '/v1/s3/objects/get', { ...writer, body: { bucket: 'scratch', key: 'tmp.txt' } })).status, 404);
      const listed = (await (await s.call('POST', '/v1/s3/objects/list', { ...writer, body: { bucket: 'scratch' } })).json()) as any;
      assert.deepEqual(listed.objects.map((o: any) => o.key), ['other.txt']);
      const all = (await (await s.call('POST', '/v1/s3/objects/list', { ...writer, body: { bucket: 'scratch', include_tombstoned: true } })).json()) as any;
      assert.deepEqual(all.objects.map((o: any) => [o.key, o.state]), [['other.txt', 'active'], ['tmp.txt', 'tombstoned']]);
      const manifest = (await (await s.call('GET', `/v1/manifests/${created.manifest_id}`, writer)).json()) as any;
      assert.equal(manifest.state, 'tombstoned');
      const rehydrated = await s.call('POST', `/v1/manifests/${created.manifest_id}/rehydrate`, { ...writer, body: {} });
      assert.equal(await rehydrated.text(), 'temporary');
      const visible = (await (await s.call('GET', '/v1/manifests?logical_ref=s3://scratch/tmp.txt', writer)).json()) as any;
      assert.equal(visible.manifests.length, 0, 'tombstoned manifests are hidden from lists by default');
      const withTombstoned = (await (await s.call('GET', '/v1/manifests?logical_ref=s3://scratch/tmp.txt&include_tombstoned=true', writer)).json()) as any;
      assert.equal(withTombstoned.manifests.length, 1);
    });

    test('list pages with a continuation token and filters by prefix', async () => {
      for (const k of ['logs/a', 'logs/b', 'logs/c', 'logs_x', 'other/d']) await put({ bucket: 'paging', key: k, body_text: k });
      const keys: string[] = [];
      let token: string | undefined;
      let pages = 0;
      do {
        const page = (await (await s.call('POST', '/v1/s3/objects/list', { ...writer, body: { bucket: 'paging', prefix: 'logs/', max_keys: 2, ...(token ? { continuation_token: token } : {}) } })).json()) as any;
        keys.push(...page.objects.map((o: any) => o.key));
        token = page.next_continuation_token ?? undefined;
        assert.equal(page.is_truncated, token !== undefined);
        pages++;
      } while (token);
      assert.deepEqual(keys, ['logs/a', 'logs/b', 'logs/c']);
      assert.equal(pages, 2);
      const defaults = (await (await s.call('POST', '/v1/s3/objects/list', { ...writer, body: { bucket: 'paging' } })).json()) as any;
      assert.equal(defaults.max_keys, 1000);
    });

    test('a continuation token the service did not issue is a 400, not an empty page', async () => {
      const workUnitToken = Buffer.from('wul1:wu_01jaaaaaaaaaaaaaaaaaaaaaaa').toString('base64url');
      for (const token of ['garbage', 'not base64!', Buffer.from('logs/a').toString('base64url'), workUnitToken, `${Buffer.from('obj1:logs/a').toString('base64url')}=`]) {
        const res = await s.call('POST', '/v1/s3/objects/list', { ...writer, body: { bucket: 'paging', continuation_token: token } });
        assert.equal(res.status, 400, token);
        const body = (await res.json()) as { error: { code: string; message: string } };
        assert.equal(body.error.code, 'invalid_request');
        assert.match(body.error.message, /continuation_token/);
      }
    });

    const badPuts: Array<[string, Record<string, unknown>, number, string]> = [
      ['invalid base64', { bucket: 'bad', key: 'k', body_base64: 'not*base64' }, 400, 'invalid_request'],
      ['both body fields', { bucket: 'bad', key: 'k', body_text: 'a', body_base64: 'YQ==' }, 400, 'invalid_request'],
      ['neither body field', { bucket: 'bad', key: 'k' }, 400, 'invalid_request'],
      ['a bucket name that cannot form a logical_ref', { bucket: 'Bad Bucket!', key: 'k', body_text: 'a' }, 400, 'invalid_request'],
      ['a key with control characters', { bucket: 'bad', key: 'a\u0000b', body_text: 'a' }, 400, 'invalid_request'],
    ];
    for (const [name, body, status, code] of badPuts) {
      test(`a put with ${name} is refused with ${status} ${code} and stores nothing`, async () => {
        const res = await put(body);
        assert.equal(res.status, status);
        assert.equal(await errorCode(res), code);
        const listed = (await (await s.call('POST', '/v1/s3/objects/list', { ...writer, body: { bucket: 'bad' } })).json()) as any;
        assert.equal(listed.objects.length, 0);
      });
    }

    test('an oversized body is refused with 413 and stores nothing', async () => {
      const res = await put({ bucket: 'big', key: 'k', body_base64: b64(corpusFile('random', 4 * 1024 * 1024, 'big')) });
      assert.equal(res.status, 413);
      assert.equal(await errorCode(res), 'payload_too_large');
      const listed = (await (await s.call('POST', '/v1/s3/objects/list', { ...writer, body: { bucket: 'big' } })).json()) as any;
      assert.equal(listed.objects.length, 0);
    });

    test('every gateway operation is an audit event', async () => {
      await put({ bucket: 'audit', key: 'k', body_text: 'x' });
      await s.call('POST', '/v1/s3/objects/head', { ...writer, body: { bucket: 'audit', key: 'k' } });
      await (await s.call('POST', '/v1/s3/objects/get', { ...writer, body: { bucket: 'audit', key: 'k' } })).arrayBuffer();
      await (await s.call('POST', '/v1/s3/objects/range', { ...writer, body: { bucket: 'audit', key: 'k', range: { start: 0 } } })).arrayBuffer();
      await s.call('POST', '/v1/s3/objects/list', { ...writer, body: { bucket: 'audit' } });
      const types = ['object.put', 'object.head', 'object.get', 'object.range', 'object.list', 'manifest.written', 'plan.created'];
      const events = (await (await s.call('POST', '/v1/ledger/query', { key: ADMIN_KEY, body: { tenant: 'acme', event_types: types } })).json()) as any;
      const seen = new Set(events.events.map((e: any) => e.type));
      for (const t of types) assert.ok(seen.has(t), `${t} was recorded`);
    });
  });
}
