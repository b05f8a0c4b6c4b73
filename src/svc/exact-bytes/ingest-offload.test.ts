import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { corpusFile } from '../../../bench/corpus/corpus-files.ts';
import { SvcError } from '../errors.ts';
import { chunkScopeFor } from '../chunk-store/chunk-scope.ts';
import type { ChunkStore } from '../chunk-store/chunk-store.ts';
import { FsChunkStore } from '../chunk-store/fs-chunk-store.ts';
import { ChunkWindows } from '../chunking/chunk-windows.ts';
import { tempPackStore } from '../../../test/helpers/temp-pack-store.ts';
import { ingest } from './ingest.ts';
import { IngestOffloadPool, OFFLOAD_MIN_BYTES, offloadsIngest, SCAN_HEAD_BYTES, scansOnWorker, SLOT_BYTES } from './ingest-offload.ts';
import { validateChunkingParams } from '../chunking/chunking-params.ts';
import type { ChunkRef } from './chunk-ref.ts';
import { openRehydration } from './rehydrate.ts';

const MiB = 1024 * 1024;
const scope = chunkScopeFor('tenant', 'acme');
const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

function tempStore(t: { after(fn: () => void): void }): FsChunkStore {
  const root = mkdtempSync(path.join(os.tmpdir(), 'svc-offload-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  return new FsChunkStore({ root, fsyncFiles: false });
}

async function* pieces(data: Uint8Array, size = 100_000, pause?: () => Promise<void>): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < data.length; offset += size) {
    if (pause) await pause();
    yield data.subarray(offset, offset + size);
  }
}

async function collect(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const p of stream) parts.push(p);
  return Buffer.concat(parts);
}

function newPool(t: { after(fn: () => Promise<void>): void }, options: { slots?: number; workers?: number } = {}): IngestOffloadPool {
  const pool = new IngestOffloadPool({ workers: 1, ...options });
  t.after(() => pool.close());
  return pool;
}

/** `inner` with every writer it opens changed by `patch` (a slow lookup, a failing flush). */
function withWriter(inner: FsChunkStore, patch: (writer: ReturnType<FsChunkStore['openWriter']>) => void): FsChunkStore {
  const store = Object.create(inner) as FsChunkStore;
  store.openWriter = () => {
    const writer = inner.openWriter();
    patch(writer);
    return writer;
  };
  return store;
}

/** Rehydrates an ingest's result from `store`, checked against its digest, and compares it with `expected`. */
async function assertRestores(store: ChunkStore, result: { chunks: ChunkRef[]; sha256: string }, expected: Uint8Array, message?: string): Promise<void> {
  const back = await openRehydration(result.chunks, { store, scope, expectedSha256: result.sha256 });
  assert.deepEqual(await collect(back.stream), expected, message);
}

/** Until the workers' last answers (a dropped stream's) have come in. */
async function settled(pool: IngestOffloadPool, slots: number): Promise<void> {
  for (let i = 0; i < 200 && (pool.openStreams > 0 || pool.freeSlots < slots); i++) await new Promise((r) => setTimeout(r, 5));
}

test('only large objects of known size are offloaded, and only with a second core', () => {
  assert.equal(offloadsIngest(undefined, 8), false);
  assert.equal(offloadsIngest(OFFLOAD_MIN_BYTES - 1, 8), false);
  assert.equal(offloadsIngest(OFFLOAD_MIN_BYTES, 8), true);
  assert.equal(offloadsIngest(OFFLOAD_MIN_BYTES, 1), false);
});

for (const kind of ['log-like', 'json', 'random', 'repeated'] as const) {
  test(`an offloaded ${kind} ingest stores exactly what the main thread would (ids, codecs, frames, digest)`, async (t) => {
    const data = corpusFile(kind, 6 * MiB + 12_345, `offload-${kind}`);
    const inlineStore = tempStore(t);
    const offloadStore = tempStore(t);
    const pool = newPool(t);
    const inline = await ingest(pieces(data), { store: inlineStore, scope, mode: 'enforce', offload: false });
    const offloaded = await ingest(pieces(data), { store: offloadStore, scope, mode: 'enforce', offload: pool });
    assert.ok(pool.counts.batches > 0, 'the worker hashed the batches');
    assert.equal(offloaded.sha256, sha256(data));
    assert.equal(offloaded.sha256, inline.sha256);
    assert.deepEqual(offloaded.chunks, inline.chunks);
    assert.equal(offloaded.bytes_stored, inline.bytes_stored);
    assert.deepEqual(offloaded.stats.raw_chunks, inline.stats.raw_chunks);
    for (const c of offloaded.chunks.filter((x) => x.codec === 'zstd').slice(0, 20)) {
      assert.deepEqual(await offloadStore.readStored(scope, c.id, 'zstd'), await inlineStore.readStored(scope, c.id, 'zstd'), `frame of ${c.id}`);
    }
    await assertRestores(offloadStore, offloaded, data);
    await settled(pool, 8);
    assert.equal(pool.openStreams, 0);
    assert.equal(pool.freeSlots, 8, 'every slot came back');
  });
}

test('batches fill their slots: a long ingest sends about one batch per slot of bytes, not one per chunk', async (t) => {
  const store = tempStore(t);
  const pool = newPool(t);
  const data = corpusFile('log-like', 12 * MiB, 'offload-batches');
  const result = await ingest(pieces(data), { store, scope, mode: 'enforce', offload: pool });
  const slotsOfBytes = Math.ceil(data.length / SLOT_BYTES);
  // Each batch holds whole chunks up to a slot, so a batch may end up to one chunk short of full: allow twice the
  // bytes' worth. Sending whenever the in-flight window is full (the defect this guards) made ~one batch per chunk.
  assert.ok(result.chunks.length > 4 * slotsOfBytes, `enough chunks to tell the two apart (${result.chunks.length})`);
  assert.ok(pool.counts.batches <= 2 * slotsOfBytes, `${pool.counts.batches} batches for ${result.chunks.length} chunks in ${slotsOfBytes} slots of bytes`);
  await assertRestores(store, result, data);
});

test('chunks the scope already holds are not compressed again', async (t) => {
  const store = tempStore(t);
  const pool = newPool(t);
  const data = corpusFile('log-like', 5 * MiB, 'offload-dup');
  const first = await ingest(pieces(data), { store, scope, mode: 'enforce', offload: pool });
  const framesAfterFirst = pool.counts.frames;
  assert.ok(framesAfterFirst >= first.chunks.length * 0.9, `first ingest coded ${framesAfterFirst} frames for ${first.chunks.length} chunks`);
  const second = await ingest(pieces(data), { store, scope, mode: 'enforce', offload: pool });
  assert.equal(second.stats.chunks_reused, second.chunks.length);
  assert.equal(second.bytes_stored, 0);
  assert.equal(pool.counts.frames, framesAfterFirst, 'no frame coded for chunks that were reused');
});

test('more concurrent ingests than slots all finish, bit-exact, with poisoned windows and small packs', async (t) => {
  const store = (await tempPackStore(t, 'svc-offload-packs-')).make({ packTargetBytes: 256 * 1024, frameCodec: 'none' });
  const pool = newPool(t, { slots: 2 });
  const kinds = ['log-like', 'json', 'random', 'log-like', 'json'] as const;
  const objects = kinds.map((kind, i) => corpusFile(kind, 3 * MiB + i * 77_777, `offload-concurrent-${i}`));
  // Windows are poisoned as they return to the pool: a chunk released too early would be stored as garbage.
  const windows = new ChunkWindows({ poison: 0xa5 });
  const results = await Promise.all(objects.map((data) => ingest(pieces(data, 33_333), { store, scope, mode: 'enforce', windows, offload: pool })));
  assert.equal(windows.lent, 0);
  for (const [i, result] of results.entries()) {
    assert.equal(result.sha256, sha256(objects[i]!));
    await assertRestores(store, result, objects[i]!, `object ${i} exact`);
  }
  await settled(pool, 2);
  assert.equal(pool.freeSlots, 2);
});

test('a chunk larger than a slot gets buffers of its own', async (t) => {
  const store = tempStore(t);
  const pool = newPool(t);
  const data = corpusFile('log-like', 9 * MiB, 'offload-big-chunks');
  const result = await ingest(pieces(data, 777_777), { store, scope, mode: 'enforce', offload: pool, chunking: { minSize: 1024 * 1024, avgSize: 2 * MiB, maxSize: 4 * MiB } });
  assert.ok(result.chunks.some((c) => c.length > SLOT_BYTES), 'some chunk is larger than a slot');
  assert.equal(result.sha256, sha256(data));
  await assertRestores(store, result, data);
  await settled(pool, 8);
  assert.equal(pool.freeSlots, 8);
});

test('an ingest that fails part way gives its slots back and leaves the pool usable', async (t) => {
  const store = tempStore(t);
  const pool = newPool(t);
  const data = corpusFile('json', 6 * MiB, 'offload-too-large');
  await assert.rejects(ingest(pieces(data), { store, scope, mode: 'enforce', offload: pool, maxBytes: 4 * MiB }), (err: unknown) => err instanceof SvcError && err.code === 'payload_too_large');
  await settled(pool, 8);
  assert.equal(pool.openStreams, 0, 'the stream was dropped');
  assert.equal(pool.freeSlots, 8, 'every slot came back');
  const ok = await ingest(pieces(data), { store, scope, mode: 'enforce', offload: pool });
  assert.equal(ok.sha256, sha256(data));
});

test('a pool that stops under an ingest fails that ingest instead of hanging it', async (t) => {
  const store = tempStore(t);
  const pool = new IngestOffloadPool({ workers: 1 });
  const data = corpusFile('log-like', 8 * MiB, 'offload-closed');
  let n = 0;
  const running = ingest(
    pieces(data, 100_000, async () => {
      if (++n === 30) await pool.close();
    }),
    { store, scope, mode: 'enforce', offload: pool },
  );
  await assert.rejects(running, /closed|exited/);
  assert.equal(pool.openStreams, 0);
});

test('a chunk whose lookup ends after its ingest failed does not hang the ingest', { timeout: 30_000 }, async (t) => {
  const pool = newPool(t);
  // Every dedupe lookup answers late, so chunks decide to compress after the source has failed.
  const store = withWriter(tempStore(t), (writer) => {
    const stat = writer.stat.bind(writer);
    writer.stat = async (...args: Parameters<typeof stat>) => {
      await new Promise((r) => setTimeout(r, 40));
      return stat(...args);
    };
  });
  const data = corpusFile('log-like', 6 * MiB, 'offload-late-lookup');
  async function* failing(): AsyncGenerator<Uint8Array> {
    yield* pieces(data.subarray(0, 3 * MiB));
    throw new Error('the client went away');
  }
  await assert.rejects(ingest(failing(), { store, scope, mode: 'enforce', offload: pool }), /went away/);
  await settled(pool, 8);
  assert.equal(pool.openStreams, 0);
  assert.equal(pool.freeSlots, 8);
});

test('an ingest whose final flush fails still ends its stream on the worker', { timeout: 30_000 }, async (t) => {
  const pool = newPool(t);
  const store = withWriter(tempStore(t), (writer) => {
    writer.flush = () => Promise.reject(new Error('disk full'));
  });
  await assert.rejects(ingest(pieces(corpusFile('json', 5 * MiB, 'offload-flush')), { store, scope, mode: 'enforce', offload: pool }), /disk full/);
  await settled(pool, 8);
  assert.equal(pool.openStreams, 0, 'no stream left open (it would keep the workers, and the process, alive)');
  assert.equal(pool.freeSlots, 8);
});

test('the worker cuts an object where this thread would, whatever the pieces and wherever slots end (decision 203)', async (t) => {
  const pool = newPool(t, { slots: 3 });
  const sizes = [4 * SLOT_BYTES, 4 * SLOT_BYTES + 1, 5 * SLOT_BYTES - 1, 4 * MiB + SCAN_HEAD_BYTES + 7];
  const pieceSizes = [65_536, 1_000_003, 4_099, Number.MAX_SAFE_INTEGER];
  for (const [i, size] of sizes.entries()) {
    for (const kind of ['random', 'log-like'] as const) {
      const data = corpusFile(kind, size, `offload-cuts-${i}`);
      const pieceSize = pieceSizes[i]!;
      const inline = await ingest(pieces(data, pieceSize), { store: tempStore(t), scope, mode: 'enforce', offload: false });
      const scannedBefore = pool.counts.scanned;
      const store = tempStore(t);
      const offloaded = await ingest(pieces(data, pieceSize), { store, scope, mode: 'enforce', offload: pool });
      assert.ok(pool.counts.scanned > scannedBefore, 'the worker cut the object');
      assert.deepEqual(
        offloaded.chunks.map((c) => [c.offset, c.length, c.id]),
        inline.chunks.map((c) => [c.offset, c.length, c.id]),
        `${kind}, ${size} bytes in pieces of ${pieceSize}`,
      );
      assert.equal(offloaded.sha256, sha256(data));
      await assertRestores(store, offloaded, data);
    }
  }
  await settled(pool, 3);
  assert.equal(pool.freeSlots, 3, 'every slot came back');
});

test('a slot of many more chunks than the in-flight window is started whole: small chunks do not stall the encode step', { timeout: 60_000 }, async (t) => {
  const pool = newPool(t, { slots: 2 });
  const store = (await tempPackStore(t, 'svc-offload-small-')).make({ frameCodec: 'none' });
  const data = corpusFile('log-like', 2 * MiB + 99_999, 'offload-small-chunks');
  const chunking = { minSize: 256, avgSize: 1024, maxSize: 4096 };
  const result = await ingest(pieces(data), { store, scope, mode: 'enforce', offload: pool, chunking, concurrency: 8 });
  assert.ok(result.chunks.length > 8 * 2 * Math.ceil(data.length / SLOT_BYTES), `many chunks per slot (${result.chunks.length})`);
  assert.equal(result.sha256, sha256(data));
  await assertRestores(store, result, data);
  await settled(pool, 2);
  assert.equal(pool.freeSlots, 2);
});

test('forced boundaries and chunks larger than a slot head are cut on this thread, hashed on the worker', async (t) => {
  const params = validateChunkingParams();
  assert.equal(scansOnWorker(params, undefined), true);
  assert.equal(scansOnWorker(params, []), true);
  assert.equal(scansOnWorker(params, [1000]), false);
  assert.equal(scansOnWorker(validateChunkingParams({ minSize: 64 * 1024, avgSize: 256 * 1024, maxSize: 2 * SCAN_HEAD_BYTES }), undefined), false);
  const pool = newPool(t);
  const data = corpusFile('json', 5 * MiB, 'offload-boundaries');
  const boundaries = [123_457, 2 * MiB + 3, 4 * MiB - 1];
  const inline = await ingest(pieces(data), { store: tempStore(t), scope, mode: 'enforce', offload: false, boundaries });
  const store = tempStore(t);
  const offloaded = await ingest(pieces(data), { store, scope, mode: 'enforce', offload: pool, boundaries });
  assert.equal(pool.counts.scanned, 0, 'not cut on the worker');
  assert.ok(pool.counts.batches > 0, 'hashed on the worker');
  assert.deepEqual(offloaded.chunks, inline.chunks);
  for (const b of boundaries) assert.ok(offloaded.chunks.some((c) => c.offset === b), `a chunk starts at ${b}`);
  await assertRestores(store, offloaded, data);
});
