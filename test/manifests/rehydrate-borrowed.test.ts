/**
 * POST /v1/manifests/{id}/rehydrate and the object get write whole objects from borrowed chunk
 * buffers (decision 173), and the rehydrate route its ranges too (decision 195): one buffer pool shared
 * by every request of the server. Many rehydrations at once, of different objects and kinds, each
 * read slowly by its client, must all come back bit for bit; a damaged chunk
 * among the first two is still answered with the error body, a later one
 * cuts the connection.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import http from 'node:http';
import { after, before, describe, test } from 'node:test';
import { corpusFile } from '../../bench/corpus/corpus-files.ts';
import { flipStoredByte } from '../helpers/chunk-damage.ts';
import { ADMIN_KEY, KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

/** Rehydrates with a client that pauses after every read, so the server's writes wait on the socket. */
function slowRehydrate(url: string, manifestId: string, key: string = KEYS.acmeWriter, body: object = {}): Promise<{ status: number; body: Buffer; complete: boolean }> {
  return new Promise((resolve, reject) => {
    const req = http.request(`${url}/v1/manifests/${manifestId}/rehydrate`, { method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => {
        parts.push(d);
        res.pause();
        setTimeout(() => res.resume(), 1);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts), complete: true }));
      res.on('error', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts), complete: false }));
      res.on('aborted', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(parts), complete: false }));
    });
    req.on('error', reject);
    req.end(JSON.stringify(body));
  });
}

describe('rehydration from borrowed buffers over HTTP', () => {
  let s: TestServer;
  const put = async (name: string, data: Uint8Array) => {
    const res = await fetch(`${s.url}/v1/s3/objects?bucket=borrow&key=${name}`, { method: 'PUT', headers: { 'x-api-key': KEYS.acmeWriter, 'content-type': 'application/octet-stream', 'x-svc-content-sha256': sha256(data) }, body: data });
    assert.equal(res.status, 201, await res.clone().text());
    return ((await res.json()) as { manifest_id: string }).manifest_id;
  };

  before(async () => {
    s = await startTestServer({ engine: 'sqlite' });
  });
  after(async () => s?.close());

  test('eight concurrent slow rehydrations of different objects all come back bit for bit', { timeout: 120_000 }, async () => {
    const kinds = ['random', 'log-like', 'json', 'random', 'encrypted-like', 'log-like', 'repeated', 'random'] as const;
    const objects = await Promise.all(kinds.map(async (kind, i) => {
      const data = corpusFile(kind, 1_500_000 + i * 77_777, `borrow-http-${i}`);
      return { data, id: await put(`o${i}.bin`, data) };
    }));
    const results = await Promise.all(objects.map((o) => slowRehydrate(s.url, o.id)));
    for (const [i, r] of results.entries()) {
      assert.equal(r.status, 200);
      assert.ok(r.complete);
      assert.ok(r.body.equals(objects[i]!.data), `object ${i} (${kinds[i]}) bit for bit`);
    }
  });

  test('object gets (POST /v1/s3/objects/get) borrow too: concurrent gets of several objects come back bit for bit', { timeout: 60_000 }, async () => {
    const datas = [0, 1, 2, 3].map((i) => corpusFile(i % 2 ? 'log-like' : 'random', 1_200_000 + i * 33_333, `borrow-get-${i}`));
    await Promise.all(datas.map((d, i) => put(`g${i}.bin`, d)));
    const got = await Promise.all(datas.map(async (_, i) => {
      const res = await fetch(`${s.url}/v1/s3/objects/get`, { method: 'POST', headers: { 'x-api-key': KEYS.acmeWriter, 'content-type': 'application/json' }, body: JSON.stringify({ bucket: 'borrow', key: `g${i}.bin` }) });
      assert.equal(res.status, 200);
      return Buffer.from(await res.arrayBuffer());
    }));
    for (const [i, d] of datas.entries()) assert.ok(got[i]!.equals(d), `object ${i}`);
  });

  test('object ranges (POST /v1/s3/objects/range) borrow too: concurrent ranges of several objects, cold then cached, come back bit for bit', { timeout: 60_000 }, async () => {
    const datas = [0, 1, 2].map((i) => corpusFile(i === 1 ? 'random' : 'log-like', 1_600_000 + i * 44_444, `borrow-obj-range-${i}`));
    await Promise.all(datas.map((d, i) => put(`or${i}.bin`, d)));
    const ranges = datas.flatMap((d, i) => [0, 1].map((k) => ({ i, start: (i * 99_991 + k * 500_003) % (d.length - 700_000), length: 400_000 + k * 250_000 })));
    for (const pass of ['cold', 'cached']) {
      const got = await Promise.all(ranges.map(async ({ i, start, length }) => {
        const res = await fetch(`${s.url}/v1/s3/objects/range`, { method: 'POST', headers: { 'x-api-key': KEYS.acmeWriter, 'content-type': 'application/json' }, body: JSON.stringify({ bucket: 'borrow', key: `or${i}.bin`, range: { start, end: start + length - 1 } }) });
        assert.equal(res.status, 206, `${pass}: ${res.status}`);
        return Buffer.from(await res.arrayBuffer());
      }));
      for (const [k, { i, start, length }] of ranges.entries()) assert.ok(got[k]!.equals(datas[i]!.subarray(start, start + length)), `${pass} range ${k} bit for bit`);
    }
  });

  test('a damaged second chunk is answered with the error body; a damaged later chunk cuts the connection', { timeout: 60_000 }, async () => {
    for (const [index, expectAnswer] of [[1, true], [-1, false]] as const) {
      const data = corpusFile('random', 2 * 1024 * 1024, `borrow-http-damaged-${index}`);
      const id = await put(`damaged${index}.bin`, data);
      const manifest = (await (await s.call('GET', `/v1/manifests/${id}`)).json()) as any;
      assert.ok(manifest.chunks.length > 4);
      const victim = manifest.chunks.at(index);
      await flipStoredByte(s.app.objects.chunkBackend, { chunk_scope: manifest.chunk_scope, id: victim.id, codec: victim.codec }, 10);
      const r = await slowRehydrate(s.url, id, ADMIN_KEY);
      if (expectAnswer) {
        assert.equal(r.status, 500);
        const body = JSON.parse(r.body.toString('utf8')) as { error: { code: string; details: { chunk_id: string } } };
        assert.deepEqual([body.error.code, body.error.details.chunk_id], ['rehydration_failed', victim.id]);
      } else {
        assert.equal(r.status, 200);
        assert.equal(r.complete, false, 'the body is cut short, never passed off as complete');
        assert.ok(r.body.length < data.length);
      }
    }
  });

  test('concurrent slow range reads (borrowed since decision 195), cold and again from the chunk cache, all come back bit for bit', { timeout: 120_000 }, async () => {
    const objects = await Promise.all((['log-like', 'random', 'json'] as const).map(async (kind, i) => {
      const data = corpusFile(kind, 2_000_000 + i * 55_555, `borrow-http-range-${i}`);
      return { data, id: await put(`r${i}.bin`, data) };
    }));
    const ranges = objects.flatMap((o, i) => [0, 1, 2].map((k) => ({ o, start: (i * 131_071 + k * 400_009) % (o.data.length - 600_000), length: 300_000 + k * 150_000 })));
    for (const pass of ['cold', 'cached']) {
      const results = await Promise.all(ranges.map((r) => slowRehydrate(s.url, r.o.id, KEYS.acmeWriter, { range: { start: r.start, end: r.start + r.length - 1 } })));
      for (const [k, res] of results.entries()) {
        const { o, start, length } = ranges[k]!;
        assert.equal(res.status, 206, `${pass} range ${k}`);
        assert.ok(res.complete);
        assert.ok(res.body.equals(o.data.subarray(start, start + length)), `${pass} range ${k} bit for bit`);
      }
    }
  });

  test('a client that hangs up mid-body ends the stream quietly: no quarantine, the next rehydration is whole', { timeout: 60_000 }, async () => {
    const data = corpusFile('random', 8 * 1024 * 1024, 'borrow-http-hangup');
    const id = await put('hangup.bin', data);
    const received = await new Promise<number>((resolve, reject) => {
      const req = http.request(`${s.url}/v1/manifests/${id}/rehydrate`, { method: 'POST', headers: { 'x-api-key': KEYS.acmeWriter, 'content-type': 'application/json' } }, (res) => {
        let bytes = 0;
        res.on('data', (d: Buffer) => {
          bytes += d.length;
          if (bytes > 1024 * 1024) req.destroy();
        });
        res.on('close', () => resolve(bytes));
      });
      req.on('error', () => undefined);
      req.end('{}');
      setTimeout(() => reject(new Error('no answer')), 30_000).unref();
    });
    assert.ok(received < data.length);
    await new Promise((r) => setTimeout(r, 200));
    const manifest = (await (await s.call('GET', `/v1/manifests/${id}`)).json()) as { state: string };
    assert.equal(manifest.state, 'active', 'a client going away is not a damaged chunk');
    const again = await slowRehydrate(s.url, id);
    assert.equal(again.status, 200);
    assert.ok(again.body.equals(data));
  });

  test('a range read over a damaged second chunk is answered with the error body too', { timeout: 60_000 }, async () => {
    const data = corpusFile('random', 2 * 1024 * 1024, 'borrow-http-range-damaged');
    const id = await put('range-damaged.bin', data);
    const manifest = (await (await s.call('GET', `/v1/manifests/${id}`)).json()) as any;
    const victim = manifest.chunks[1];
    await flipStoredByte(s.app.objects.chunkBackend, { chunk_scope: manifest.chunk_scope, id: victim.id, codec: victim.codec }, 10);
    const res = await s.call('POST', `/v1/manifests/${id}/rehydrate`, { body: { range: { start: 0, end: manifest.chunks[3].offset } } });
    assert.equal(res.status, 500);
    assert.equal(res.headers.get('content-type')?.startsWith('application/json'), true);
    const body = (await res.json()) as { error: { code: string; details: { chunk_id: string } } };
    assert.deepEqual([body.error.code, body.error.details.chunk_id], ['rehydration_failed', victim.id]);
  });
});

describe('range reads over HTTP with the verified-chunk cache off (SVC_CHUNK_CACHE_BYTES=0): every chunk read into borrowed buffers', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ engine: 'sqlite', env: { SVC_CHUNK_CACHE_BYTES: '0' } });
  });
  after(async () => s?.close());

  test('concurrent slow range reads of raw and compressed objects come back bit for bit, twice', { timeout: 120_000 }, async () => {
    const objects = await Promise.all((['random', 'log-like'] as const).map(async (kind, i) => {
      const data = corpusFile(kind, 1_800_000, `borrow-http-uncached-${i}`);
      const res = await fetch(`${s.url}/v1/s3/objects?bucket=borrow&key=u${i}.bin`, { method: 'PUT', headers: { 'x-api-key': KEYS.acmeWriter, 'content-type': 'application/octet-stream', 'x-svc-content-sha256': sha256(data) }, body: data });
      assert.equal(res.status, 201, await res.clone().text());
      return { data, id: ((await res.json()) as { manifest_id: string }).manifest_id };
    }));
    const ranges = objects.flatMap((o) => [0, 1, 2, 3].map((k) => ({ o, start: 1 + k * 333_333, length: 400_000 + k * 7 })));
    for (let pass = 0; pass < 2; pass++) {
      const results = await Promise.all(ranges.map((r) => slowRehydrate(s.url, r.o.id, KEYS.acmeWriter, { range: { start: r.start, end: r.start + r.length - 1 } })));
      for (const [k, res] of results.entries()) {
        const { o, start, length } = ranges[k]!;
        assert.equal(res.status, 206);
        assert.ok(res.complete);
        assert.ok(res.body.equals(o.data.subarray(start, start + length)), `pass ${pass}, range ${k} bit for bit`);
      }
    }
  });
});
