import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FrameBuffers } from './frame-buffers.ts';
import { FrameCache, type FrameEntry } from './frame-cache.ts';

const MiB = 1024 * 1024;

/** An entry whose frame "decoded" into a pooled buffer of `pool`. */
function decodedInto(pool: FrameBuffers, bytes: number) {
  return (entry: FrameEntry) => {
    const buffer = pool.acquire(bytes);
    entry.pooled = buffer;
    return Promise.resolve(new Uint8Array(buffer, 0, bytes));
  };
}

test('a frame evicted while a reader holds it gives its buffer back only when that reader is done', async () => {
  const pool = new FrameBuffers();
  const cache = new FrameCache(1, pool); // one frame at a time
  const a = cache.add('a', decodedInto(pool, 2 * MiB));
  a.users++; // a reader between taking the entry and the end of its use
  const bufferOfA = a.pooled!;
  const b = cache.add('b', decodedInto(pool, 2 * MiB));
  assert.equal(cache.get('a'), undefined, 'a left the cache');
  assert.equal(pool.idleBytes, 0, 'but its buffer is still the reader\'s');
  assert.notEqual(b.pooled, bufferOfA, 'and no other frame decoded into it');
  cache.done(a);
  assert.equal(pool.idleBytes, bufferOfA.byteLength, 'given back once the reader is done');
  assert.equal(pool.acquire(2 * MiB), bufferOfA, 'and reused');
});

test('a frame evicted with no reader gives its buffer back at once; one replaced under the same key is dropped too', () => {
  const pool = new FrameBuffers();
  const cache = new FrameCache(3 * MiB, pool);
  const a = cache.add('a', decodedInto(pool, 2 * MiB));
  cache.settled(a, 2 * MiB);
  const b = cache.add('b', decodedInto(pool, 2 * MiB));
  cache.settled(b, 2 * MiB);
  assert.equal(cache.get('a'), undefined, 'least recently used, evicted past the bound');
  assert.equal(pool.idleBytes, 2 * MiB);
  // A reader that found an entry stale deletes only that entry, not one another reader put in its place.
  const c = cache.add('b', decodedInto(pool, MiB));
  assert.ok(b.dropped);
  cache.delete('b', b);
  assert.equal(cache.get('b'), c);
});
