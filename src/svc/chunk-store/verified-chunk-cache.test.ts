import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { corpusFile } from '../../../bench/corpus/corpus-files.ts';
import { chunkIdOf } from './chunk-id.ts';
import { chunkScopeFor } from './chunk-scope.ts';
import { FsChunkStore } from './fs-chunk-store.ts';
import { VerifiedChunkCache } from './verified-chunk-cache.ts';

const scope = chunkScopeFor('tenant', 'acme');

async function setup(t: { after(fn: () => void): void }, maxBytes: number) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'svc-cache-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const inner = new FsChunkStore({ root, fsyncFiles: false });
  const cache = new VerifiedChunkCache(inner, { maxBytes });
  const chunks = [1, 2, 3].map((k) => corpusFile('random', 10_000, `cache-${k}`));
  const ids = chunks.map(chunkIdOf);
  for (let k = 0; k < 3; k++) await cache.put(scope, ids[k]!, 'raw', chunks[k]!);
  return { inner, cache, chunks, ids };
}

test('a second read of a chunk is served from memory', async (t) => {
  const { inner, cache, chunks, ids } = await setup(t, 1 << 20);
  assert.deepEqual(Buffer.from(await cache.get(scope, ids[0]!, 'raw')), chunks[0]);
  await inner.delete(scope, ids[0]!, 'raw'); // the cache must not need the file any more
  assert.deepEqual(Buffer.from(await cache.get(scope, ids[0]!, 'raw')), chunks[0]);
  assert.deepEqual([cache.counters.hits, cache.counters.misses], [1, 1]);
});

test('the least recently used chunk is evicted when the byte budget is exceeded', async (t) => {
  const { cache, ids } = await setup(t, 25_000);
  await cache.get(scope, ids[0]!, 'raw');
  await cache.get(scope, ids[1]!, 'raw');
  await cache.get(scope, ids[0]!, 'raw'); // 0 is now the most recent
  await cache.get(scope, ids[2]!, 'raw'); // evicts 1
  assert.equal(cache.counters.entries, 2);
  const before = cache.counters.misses;
  await cache.get(scope, ids[0]!, 'raw');
  assert.equal(cache.counters.misses, before, 'chunk 0 stayed');
  await cache.get(scope, ids[1]!, 'raw');
  assert.equal(cache.counters.misses, before + 1, 'chunk 1 was evicted');
});

test('deleting a chunk through the cache forgets it', async (t) => {
  const { cache, ids } = await setup(t, 1 << 20);
  await cache.get(scope, ids[0]!, 'raw');
  await cache.delete(scope, ids[0]!, 'raw');
  await assert.rejects(cache.get(scope, ids[0]!, 'raw'), /missing/);
});

test('failed reads are not cached', async (t) => {
  const { inner, cache, chunks, ids } = await setup(t, 1 << 20);
  await inner.delete(scope, ids[1]!, 'raw');
  await assert.rejects(cache.get(scope, ids[1]!, 'raw'));
  await inner.put(scope, ids[1]!, 'raw', chunks[1]!);
  assert.deepEqual(Buffer.from(await cache.get(scope, ids[1]!, 'raw')), chunks[1]);
});

test('an entry never pins more memory than it counts: views into larger buffers are copied', async (t) => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'svc-cache-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const raw = corpusFile('random', 300, 'cache-view');
  const id = chunkIdOf(raw);
  const slab = new Uint8Array(64 * 1024);
  slab.set(raw, 1000);
  const view = slab.subarray(1000, 1300);
  const inner = new FsChunkStore({ root, fsyncFiles: false });
  // A store whose reads come back as views into a larger buffer (as Buffer's pool or a pack read can).
  const viewing = Object.assign(Object.create(inner) as FsChunkStore, { get: async () => view });
  const cache = new VerifiedChunkCache(viewing, { maxBytes: 1 << 20 });
  const first = await cache.get(scope, id, 'raw');
  assert.deepEqual(Buffer.from(first), raw);
  const second = await cache.get(scope, id, 'raw');
  assert.equal(cache.counters.hits, 1);
  assert.deepEqual(Buffer.from(second), raw);
  assert.equal(second.buffer.byteLength, raw.length, 'the cached entry owns exactly its bytes');
});

test('a sequential read (a whole object streamed once) is served from the cache but not added to it', async (t) => {
  const { inner, cache, chunks, ids } = await setup(t, 1 << 20);
  await cache.get(scope, ids[0]!, 'raw'); // a range reader's chunk
  assert.deepEqual(Buffer.from(await cache.get(scope, ids[1]!, 'raw', undefined, true)), chunks[1]);
  assert.equal(cache.counters.entries, 1, 'the sequential read was not kept');
  assert.deepEqual(Buffer.from(await cache.get(scope, ids[0]!, 'raw', undefined, true)), chunks[0]);
  assert.equal(cache.counters.hits, 1, 'a sequential read still hits');
  await inner.delete(scope, ids[1]!, 'raw');
  await assert.rejects(cache.get(scope, ids[1]!, 'raw'), /missing/, 'so the next read goes to the store');
});

test('getMany of a whole-object pass: hits from memory, the misses in one batch below, none of them kept (decision 199)', async (t) => {
  const { inner, cache, chunks, ids } = await setup(t, 1 << 20);
  await cache.get(scope, ids[1]!, 'raw'); // cached
  const batches: string[][] = [];
  (inner as { getMany?: unknown }).getMany = (s: typeof scope, requests: ReadonlyArray<{ id: string; codec: 'raw' }>) => {
    batches.push(requests.map((r) => r.id));
    return requests.map((r) => inner.get(s, r.id, r.codec));
  };
  const requests = ids.map((id) => ({ id, codec: 'raw' as const }));
  const got = await Promise.all(cache.getMany(scope, requests, true));
  assert.deepEqual(got.map((b) => Buffer.from(b)), chunks);
  assert.deepEqual(batches, [[ids[0], ids[2]]], 'the two misses went below together');
  assert.equal(cache.counters.entries, 1, 'a sequential pass keeps nothing new');
  // Not sequential: one by one through get, which keeps what it reads.
  await Promise.all(cache.getMany(scope, requests));
  assert.equal(batches.length, 1);
  assert.equal(cache.counters.entries, 3);
});
