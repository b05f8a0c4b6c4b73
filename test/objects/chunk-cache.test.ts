/**
 * `storage.chunk_cache_bytes` reaches the verified-chunk cache a server reads
 * through, and the cache is visible in /metrics (`svc_chunk_cache_bytes`,
 * `svc_chunk_cache_reads_total{result}`): a range read read twice is a miss
 * then a hit with the default cache, and a miss both times with the cache
 * turned off (0), where it holds no bytes; both answer the same bytes.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, test } from 'node:test';
import { corpusFile } from '../../bench/corpus/corpus-files.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');
let cached: TestServer;
let uncached: TestServer;

before(async () => {
  cached = await startTestServer({ engine: 'sqlite' });
  uncached = await startTestServer({ engine: 'sqlite', env: { SVC_CHUNK_CACHE_BYTES: '0' } });
});
after(async () => {
  await cached?.close();
  await uncached?.close();
});

async function metric(s: TestServer, name: string): Promise<number> {
  const text = await (await s.call('GET', '/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  assert.ok(line, `${name} is exported`);
  return Number(line.split(' ').at(-1));
}

const data = corpusFile('log-like', 2 * 1024 * 1024, 'chunk-cache');
const range = { start: 700_000, end: 700_000 + 300_000 - 1 };

async function rangeTwice(s: TestServer): Promise<{ hits: number; misses: number; bytes: number }> {
  const put = await fetch(`${s.url}/v1/s3/objects?bucket=cache&key=text.log`, { method: 'PUT', headers: { 'x-api-key': KEYS.acmeWriter, 'content-type': 'application/octet-stream', 'x-svc-content-sha256': sha256(data) }, body: data });
  const { manifest_id: id } = (await put.json()) as { manifest_id: string };
  assert.equal(put.status, 201);
  const hits0 = await metric(s, 'svc_chunk_cache_reads_total{result="hit"}');
  const misses0 = await metric(s, 'svc_chunk_cache_reads_total{result="miss"}');
  for (let i = 0; i < 2; i++) {
    const res = await s.call('POST', `/v1/manifests/${id}/rehydrate`, { key: KEYS.acmeWriter, body: { range } });
    assert.equal(res.status, 206);
    assert.deepEqual(Buffer.from(await res.arrayBuffer()), data.subarray(range.start, range.end + 1));
  }
  return {
    hits: (await metric(s, 'svc_chunk_cache_reads_total{result="hit"}')) - hits0,
    misses: (await metric(s, 'svc_chunk_cache_reads_total{result="miss"}')) - misses0,
    bytes: await metric(s, 'svc_chunk_cache_bytes'),
  };
}

test('the default cache serves a range read again from memory and reports what it holds', async () => {
  const r = await rangeTwice(cached);
  assert.ok(r.misses > 0, 'the first read misses');
  assert.equal(r.hits, r.misses, 'the second read hits every chunk the first one missed');
  assert.ok(r.bytes >= range.end - range.start + 1, `the cache holds the chunks read (${r.bytes} bytes)`);
});

test('storage.chunk_cache_bytes 0 (SVC_CHUNK_CACHE_BYTES=0) turns the cache off', async () => {
  const r = await rangeTwice(uncached);
  assert.equal(r.hits, 0);
  assert.ok(r.misses > 0);
  assert.equal(r.bytes, 0);
});
