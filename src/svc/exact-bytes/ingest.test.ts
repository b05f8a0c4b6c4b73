import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CORPUS_KINDS, corpusFile, withInsertedByte } from '../../../bench/corpus/corpus-files.ts';
import { SvcError } from '../errors.ts';
import { chunkScopeFor } from '../chunk-store/chunk-scope.ts';
import { FsChunkStore } from '../chunk-store/fs-chunk-store.ts';
import { ChunkWindows } from '../chunking/chunk-windows.ts';
import { tempPackStore } from '../../../test/helpers/temp-pack-store.ts';
import { ingest } from './ingest.ts';
import { openRehydration } from './rehydrate.ts';

const SMALL = { minSize: 2048, avgSize: 8192, maxSize: 32768 };
const scope = chunkScopeFor('tenant', 'acme');

function tempStore(t: { after(fn: () => void): void }): FsChunkStore {
  const root = mkdtempSync(path.join(os.tmpdir(), 'svc-ingest-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  return new FsChunkStore({ root, fsyncFiles: false });
}

async function* pieces(data: Uint8Array, size = 100_000): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < data.length; offset += size) yield data.subarray(offset, offset + size);
}

async function collect(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const p of stream) parts.push(p);
  return Buffer.concat(parts);
}

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

for (const mode of ['enforce', 'observe'] as const) {
  for (const kind of CORPUS_KINDS) {
    test(`a ${kind} object round-trips bit for bit in ${mode} mode`, async (t) => {
      const store = tempStore(t);
      const data = corpusFile(kind, 600_000, `rt-${kind}`);
      const result = await ingest(pieces(data), { store, scope, mode, chunking: SMALL });
      assert.equal(result.sha256, sha256(data));
      assert.equal(result.bytes_in, data.length);
      assert.equal(result.chunks.reduce((n, c) => n + c.length, 0), data.length);
      const back = await openRehydration(result.chunks, { store, scope, expectedSha256: result.sha256 });
      assert.deepEqual(await collect(back.stream), data);
    });
  }
}

test('enforce compresses compressible data and stores random data raw', async (t) => {
  const store = tempStore(t);
  const logs = await ingest(pieces(corpusFile('log-like', 500_000, 'c')), { store, scope, mode: 'enforce', chunking: SMALL });
  assert.ok(logs.bytes_stored < logs.bytes_in / 3, `logs stored ${logs.bytes_stored} of ${logs.bytes_in}`);
  assert.ok(logs.chunks.every((c) => c.codec === 'zstd'));
  const random = await ingest(pieces(corpusFile('random', 500_000, 'c')), { store, scope, mode: 'enforce', chunking: SMALL });
  assert.equal(random.bytes_stored, random.bytes_in);
  assert.ok(random.chunks.every((c) => c.codec === 'raw'));
  assert.equal(random.stats.raw_chunks.high_entropy, random.chunks.length);
});

test('chunks of an already-compressed object are stored raw without trying zstd', async (t) => {
  const store = tempStore(t);
  const result = await ingest(pieces(corpusFile('compressed', 300_000, 'gz')), { store, scope, mode: 'enforce', chunking: SMALL });
  assert.equal(result.stats.detected_format, 'gzip');
  assert.equal(result.stats.raw_chunks.object_compressed_format, result.chunks.length);
});

test('a second ingest of the same object stores nothing new', async (t) => {
  const store = tempStore(t);
  const data = corpusFile('json', 400_000, 'again');
  const first = await ingest(pieces(data), { store, scope, mode: 'enforce', chunking: SMALL });
  const second = await ingest(pieces(data), { store, scope, mode: 'enforce', chunking: SMALL });
  assert.ok(first.bytes_stored > 0);
  assert.equal(second.bytes_stored, 0);
  assert.ok(second.chunks.every((c) => c.reused));
  assert.equal(second.stats.bytes_deduplicated, data.length);
  assert.deepEqual(second.chunks.map((c) => c.id), first.chunks.map((c) => c.id));
});

test('another tenant storing the same object does not reuse the first tenant chunks', async (t) => {
  const store = tempStore(t);
  const data = corpusFile('random', 200_000, 'tenants');
  await ingest(pieces(data), { store, scope, mode: 'enforce', chunking: SMALL });
  const other = await ingest(pieces(data), { store, scope: chunkScopeFor('tenant', 'globex'), mode: 'enforce', chunking: SMALL });
  assert.equal(other.bytes_stored, data.length);
});

test('repeated blocks inside one object are stored once', async (t) => {
  const store = tempStore(t);
  const data = corpusFile('repeated', 4 << 20, 'rep');
  const result = await ingest(pieces(data), { store, scope, mode: 'enforce', chunking: SMALL });
  assert.ok(result.bytes_stored < 1.2 * (1 << 20), `stored ${result.bytes_stored} bytes for 4 copies of 1 MiB`);
  assert.ok(result.stats.chunks_reused > 0);
});

test('a one-byte insert into a stored object adds about one chunk', async (t) => {
  const store = tempStore(t);
  const data = corpusFile('random', 3 << 20, 'insert');
  await ingest(pieces(data), { store, scope, mode: 'enforce', chunking: SMALL });
  const shifted = await ingest(pieces(withInsertedByte(data)), { store, scope, mode: 'enforce', chunking: SMALL });
  assert.ok(shifted.stats.chunks_new <= 2, `${shifted.stats.chunks_new} new chunks`);
  assert.ok(shifted.bytes_stored <= 2 * SMALL.maxSize);
});

test('observe stores raw copies and reports what enforce would store', async (t) => {
  const store = tempStore(t);
  const data = corpusFile('log-like', 400_000, 'observe');
  const observed = await ingest(pieces(data), { store, scope, mode: 'observe', chunking: SMALL });
  assert.ok(observed.chunks.every((c) => c.codec === 'raw'));
  assert.equal(observed.bytes_stored, data.length);
  assert.ok(observed.stats.would_store_bytes < data.length / 3, 'logs would compress');
  // Enforce afterwards reuses the raw copies rather than keeping a second, compressed copy.
  const enforced = await ingest(pieces(data), { store, scope, mode: 'enforce', chunking: SMALL });
  assert.equal(enforced.bytes_stored, 0);
  assert.deepEqual(enforced.chunks.map((c) => [c.id, c.codec]), observed.chunks.map((c) => [c.id, 'raw']));
});

test('observe does not reference compressed chunks written by enforce', async (t) => {
  const store = tempStore(t);
  const data = corpusFile('json', 300_000, 'observe-after');
  await ingest(pieces(data), { store, scope, mode: 'enforce', chunking: SMALL });
  const observed = await ingest(pieces(data), { store, scope, mode: 'observe', chunking: SMALL });
  assert.ok(observed.chunks.every((c) => c.codec === 'raw'));
  assert.equal(observed.stats.would_store_bytes, 0, 'enforce would have stored nothing');
  const back = await openRehydration(observed.chunks, { store, scope, expectedSha256: observed.sha256 });
  assert.deepEqual(await collect(back.stream), data);
});

test('an object over the size limit is refused with payload_too_large', async (t) => {
  const store = tempStore(t);
  await assert.rejects(
    ingest(pieces(corpusFile('random', 300_000, 'big')), { store, scope, mode: 'enforce', chunking: SMALL, maxBytes: 100_000 }),
    (err: unknown) => err instanceof SvcError && err.code === 'payload_too_large',
  );
});

test('an empty object has the empty digest and no chunks', async (t) => {
  const store = tempStore(t);
  const result = await ingest(pieces(new Uint8Array(0)), { store, scope, mode: 'enforce' });
  assert.deepEqual([result.sha256, result.bytes_in, result.chunks.length], [sha256(new Uint8Array(0)), 0, 0]);
  const back = await openRehydration(result.chunks, { store, scope, expectedSha256: result.sha256 });
  assert.equal((await collect(back.stream)).length, 0);
});

test('progress is reported as bytes are read', async (t) => {
  const store = tempStore(t);
  const seen: number[] = [];
  await ingest(pieces(corpusFile('random', 200_000, 'p')), { store, scope, mode: 'enforce', chunking: SMALL, onProgress: (n) => seen.push(n) });
  assert.ok(seen.length > 1);
  assert.equal(seen.at(-1), 200_000);
  assert.deepEqual(seen, [...seen].sort((a, b) => a - b));
});

test('a store failure on a later chunk fails the ingest cleanly, without an unhandled rejection', async (t) => {
  const store = tempStore(t);
  let puts = 0;
  const failing = Object.create(store, {
    put: { value: async (...args: Parameters<FsChunkStore['put']>) => (++puts === 3 ? Promise.reject(new Error('disk full')) : store.put(...args)) },
  }) as FsChunkStore;
  const unhandled: unknown[] = [];
  const onUnhandled = (err: unknown) => unhandled.push(err);
  process.on('unhandledRejection', onUnhandled);
  try {
    await assert.rejects(ingest(pieces(corpusFile('random', 400_000, 'fail')), { store: failing, scope, mode: 'enforce', chunking: SMALL }), /disk full/);
    await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    process.off('unhandledRejection', onUnhandled);
  }
  assert.deepEqual(unhandled, []);
});

test('concurrent ingests into one pack store, reusing chunker windows, all come back bit for bit (decision 181)', async (t) => {
  // Small packs: many seals while other ingests are still chunking into reused windows.
  const store = (await tempPackStore(t, 'svc-ingest-packs-')).make({ packTargetBytes: 256 * 1024, frameCodec: 'none' });
  const objects = CORPUS_KINDS.map((kind, i) => corpusFile(kind, 1_500_000 + i * 77_777, `concurrent-${kind}`));
  // Pieces of odd sizes, so that chunks straddle windows.
  // Windows are poisoned as they return to the pool: a chunk released before its bytes were hashed and stored
  // would be stored as garbage and fail below.
  const windows = new ChunkWindows({ poison: 0xa5 });
  const results = await Promise.all(objects.map((data) => ingest(pieces(data, 33_333), { store, scope, mode: 'enforce', chunking: SMALL, windows })));
  assert.equal(windows.lent, 0, 'every window came back');
  for (const [i, result] of results.entries()) {
    assert.equal(result.sha256, sha256(objects[i]!));
    const back = await openRehydration(result.chunks, { store, scope, expectedSha256: result.sha256 });
    assert.deepEqual(await collect(back.stream), objects[i], `${CORPUS_KINDS[i]} exact`);
  }
});
