import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { zstdDecompressSync } from 'node:zlib';
import path from 'node:path';
import { test } from 'node:test';
import { corpusFile } from '../../../bench/corpus/corpus-files.ts';
import { encodeChunk } from '../chunking/chunk-codec.ts';
import type { Db } from '../store/db.ts';
import { ChunkPackRepository } from '../store/repositories/chunk-packs.ts';
import { chunkIdOf } from './chunk-id.ts';
import { chunkScopeFor } from './chunk-scope.ts';
import { FrameBuffers, MAX_IDLE_FRAME_BUFFER_BYTES } from './frame-buffers.ts';
import { FsChunkStore } from './fs-chunk-store.ts';
import { buildPack, PACK_MAGIC_V1, parsePack } from './pack-format.ts';
import { FsPackFiles, type PackFiles } from './pack-files.ts';
import { PackedChunkStore } from './packed-chunk-store.ts';
import { ReadBuffers } from './read-buffers.ts';
import { tempPackStore } from '../../../test/helpers/temp-pack-store.ts';

const acme = chunkScopeFor('tenant', 'acme');

async function setUp(t: { after(fn: () => Promise<void> | void): void }): Promise<{ root: string; db: Db; index: ChunkPackRepository; files: FsPackFiles; make(packs?: PackFiles, target?: number): PackedChunkStore }> {
  const temp = await tempPackStore(t);
  return { ...temp, make: (packs = temp.files, target = 1024 * 1024) => temp.make({ packs, packTargetBytes: target, legacy: true }) };
}

function chunks(n: number, size: number, seed: string): Buffer[] {
  return Array.from({ length: n }, (_, i) => corpusFile('random', size, `${seed}-${i}`));
}

test('one ingest writes its chunks as one pack: one file and one fsync (plus its directory) instead of one per chunk', async (t) => {
  const { files, make, index } = await setUp(t);
  const store = make();
  const writer = store.openWriter();
  const raws = chunks(40, 16 * 1024, 'group');
  for (const raw of raws) assert.deepEqual(await writer.put(acme, chunkIdOf(raw), 'raw', raw), { created: true });
  assert.equal(files.counters.files, 0, 'nothing is written before the flush or a full pack');
  await writer.flush();
  assert.equal(files.counters.files, 1);
  // the pack file, its shard directory and the directories created above it
  assert.ok(files.counters.fsyncs >= 2 && files.counters.fsyncs <= 5, String(files.counters.fsyncs));
  const packs = await index.packUsage();
  assert.equal(packs.length, 1);
  assert.equal(packs[0]!.live_entries, 40);
  const listed = await files.list(acme);
  assert.equal(listed.length, 1);
  const entries = parsePack(readFileSync(files.pathOf(acme, listed[0]!.packId)));
  assert.deepEqual(entries.map((e) => e.id), raws.map((r) => chunkIdOf(r)));
  for (const raw of raws) assert.deepEqual(Buffer.from(await make().get(acme, chunkIdOf(raw), 'raw')), raw);
});

test('a pack is written when it reaches the target size; a flush writes the rest', async (t) => {
  const { files, make, index } = await setUp(t);
  const store = make(undefined, 100 * 1024);
  const writer = store.openWriter();
  for (const raw of chunks(25, 10 * 1024, 'target')) await writer.put(acme, chunkIdOf(raw), 'raw', raw);
  await writer.flush();
  assert.equal(files.counters.files, 3); // 10 + 10 + 5 chunks
  assert.deepEqual((await index.packUsage()).map((p) => p.live_entries).sort(), [10, 10, 5]);
});

test('the index names a chunk only once its pack is durable: a failed pack write fails the flush and indexes nothing', async (t) => {
  const { files, make, index } = await setUp(t);
  let fail = true;
  const flaky: PackFiles = {
    write: async (scope, id, bytes) => {
      if (fail) throw new Error('ENOSPC (simulated)');
      return files.write(scope, id, bytes);
    },
    read: (...a) => files.read(...a),
    delete: (...a) => files.delete(...a),
    list: (s) => files.list(s),
    scopes: () => files.scopes(),
  };
  const store = make(flaky);
  const writer = store.openWriter();
  const [raw] = chunks(1, 5000, 'fail');
  const id = chunkIdOf(raw!);
  await writer.put(acme, id, 'raw', raw!);
  await assert.rejects(writer.flush(), /ENOSPC/);
  assert.equal(await index.locate(acme, id, 'raw'), undefined);
  assert.equal(await store.stat(acme, id), undefined, 'a chunk whose pack failed is not reported as stored');
  // A retry stores it.
  fail = false;
  const retry = store.openWriter();
  assert.deepEqual(await retry.put(acme, id, 'raw', raw!), { created: true });
  await retry.flush();
  assert.ok(await index.locate(acme, id, 'raw'));
});

test("a writer that deduplicates against another ingest's pending chunk makes that chunk durable before its own flush returns", async (t) => {
  const { make, index } = await setUp(t);
  const store = make();
  const first = store.openWriter();
  const second = store.openWriter();
  const [raw] = chunks(1, 8000, 'shared');
  const id = chunkIdOf(raw!);
  assert.deepEqual(await first.put(acme, id, 'raw', raw!), { created: true });
  assert.deepEqual(await second.stat(acme, id), { codec: 'raw', storedLength: raw!.length });
  assert.equal(await index.locate(acme, id, 'raw'), undefined);
  await second.flush(); // the first writer has not flushed
  assert.ok(await index.locate(acme, id, 'raw'), 'durable and indexed once the reusing writer flushed');
  await first.flush();
});

test('two processes racing on one new chunk both succeed; one copy is indexed and the other is dead space', async (t) => {
  const { make, index } = await setUp(t);
  const a = make();
  const b = make(); // another process: separate memory, same directory and database
  const [raw] = chunks(1, 30_000, 'race');
  const id = chunkIdOf(raw!);
  const wa = a.openWriter();
  const wb = b.openWriter();
  assert.deepEqual(await wa.put(acme, id, 'raw', raw!), { created: true });
  assert.deepEqual(await wb.put(acme, id, 'raw', raw!), { created: true });
  await Promise.all([wa.flush(), wb.flush()]);
  const usage = await index.packUsage();
  assert.equal(usage.length, 2);
  assert.deepEqual(usage.map((p) => p.live_entries).sort(), [0, 1]);
  assert.deepEqual(Buffer.from(await a.get(acme, id, 'raw')), raw);
  assert.deepEqual(Buffer.from(await b.get(acme, id, 'raw')), raw);
});

test('chunks stored one file each by an older svc stay readable and deduplicate new writes', async (t) => {
  const { root, make, files } = await setUp(t);
  const old = new FsChunkStore({ root: path.join(root, 'chunks') });
  const raw = corpusFile('log-like', 40_000, 'legacy');
  const id = chunkIdOf(raw);
  const encoded = await encodeChunk(raw);
  await old.put(acme, id, encoded.codec, encoded.data);
  await old.flush();
  const store = make();
  assert.deepEqual(await store.stat(acme, id), { codec: 'zstd', storedLength: encoded.data.length });
  assert.deepEqual(Buffer.from(await store.get(acme, id, 'zstd', raw.length)), raw);
  const writer = store.openWriter();
  assert.deepEqual(await writer.put(acme, id, 'zstd', encoded.data), { created: false });
  await writer.flush();
  assert.equal(files.counters.files, 0, 'nothing rewritten');
});

test('a pack cut short (a torn copy) is reported corrupt on read, never returned', async (t) => {
  const { make, files, index } = await setUp(t);
  const store = make();
  const [raw] = chunks(1, 20_000, 'torn');
  const id = chunkIdOf(raw!);
  await store.put(acme, id, 'raw', raw!);
  await store.flush();
  const loc = (await index.locate(acme, id, 'raw'))!;
  const file = files.pathOf(acme, loc.pack_id);
  const { truncateSync } = await import('node:fs');
  truncateSync(file, loc.pack_offset + 100);
  await assert.rejects(make().get(acme, id, 'raw'), (err: Error & { details?: Record<string, unknown> }) => err.details?.['reason'] === 'corrupt');
});

test('pack reads keep descriptors open (more packs than the cache holds read back), and a deleted pack reads as absent', async (t) => {
  const { make, files, index } = await setUp(t);
  const store = make(undefined, 1);
  const raws = chunks(80, 2000, 'descriptors');
  for (const raw of raws) await store.put(acme, chunkIdOf(raw), 'raw', raw);
  await store.flush();
  assert.equal((await index.packUsage()).length, 80, 'one pack per chunk at a one-byte target');
  for (let round = 0; round < 2; round++) {
    await Promise.all(raws.map(async (raw) => assert.deepEqual(Buffer.from(await store.get(acme, chunkIdOf(raw), 'raw')), raw)));
  }
  const loc = (await index.locate(acme, chunkIdOf(raws[0]!), 'raw'))!;
  assert.ok(await files.read(acme, loc.pack_id, loc.pack_offset, 10), 'cached');
  assert.equal(await files.delete(acme, loc.pack_id), true);
  assert.equal(await files.read(acme, loc.pack_id, loc.pack_offset, 10), undefined);
  await assert.rejects(store.get(acme, chunkIdOf(raws[0]!), 'raw'), (err: Error & { details?: Record<string, unknown> }) => err.details?.['reason'] === 'missing');
});

function textChunks(n: number, size: number, seed: string): Buffer[] {
  return Array.from({ length: n }, (_, i) => corpusFile(i % 2 ? 'json' : 'log-like', size, `${seed}-${i}`));
}

test('framed chunks: compressed together, indexed with their place in the frame, read back verified, pending or durable', async (t) => {
  const { files, make, index } = await setUp(t);
  const store = new PackedChunkStore({ packs: files, index, packTargetBytes: 64 * 1024 * 1024, frameTargetBytes: 256 * 1024 });
  const writer = store.openWriter();
  const raws = textChunks(12, 64 * 1024, 'framed');
  const results = [];
  for (const raw of raws) results.push(await writer.putFramed!(acme, chunkIdOf(raw), raw));
  assert.ok(results.every((r) => r.created));
  // Before the flush, readers of this process are served from memory, verified.
  assert.deepEqual(Buffer.from(await store.get(acme, chunkIdOf(raws[11]!), 'zstd')), raws[11]);
  await writer.flush();
  const shares = await Promise.all(results.map((r) => r.storedLength));
  const total = shares.reduce((a, b) => a + b, 0);
  const perChunkZstd = (await Promise.all(raws.map((r) => encodeChunk(r)))).reduce((n, e) => n + e.data.length, 0);
  assert.ok(total < perChunkZstd * 0.85, `frames ${total} vs per-chunk zstd ${perChunkZstd}`);
  const [packInfo] = await files.list(acme);
  const entries = parsePack(readFileSync(files.pathOf(acme, packInfo!.packId)));
  assert.deepEqual(entries.map((e) => e.id), raws.map((r) => chunkIdOf(r)), 'the pack lists every framed chunk, in order');
  assert.equal(new Set(entries.map((e) => e.offset)).size, 3, '768 KiB in frames of 256 KiB');
  const loc = (await index.locate(acme, chunkIdOf(raws[5]!), 'zstd'))!;
  assert.deepEqual(loc.frame, { frame_length: entries[5]!.length, frame_skip: raws[4]!.length, raw_length: raws[5]!.length });
  const fresh = new PackedChunkStore({ packs: files, index });
  for (const raw of raws) assert.deepEqual(Buffer.from(await fresh.get(acme, chunkIdOf(raw), 'zstd')), raw);
  // Exports get a standalone zstd form.
  const stored = await fresh.readStored(acme, chunkIdOf(raws[3]!), 'zstd');
  assert.deepEqual(Buffer.from(zstdDecompressSync(stored)), raws[3]);
  // Dedupe: a second writer finds the framed form.
  assert.equal((await fresh.openWriter().putFramed!(acme, chunkIdOf(raws[0]!), raws[0]!)).created, false);
  assert.equal((await fresh.stat(acme, chunkIdOf(raws[0]!)))?.codec, 'zstd');
});

test('zstd frames decode into pooled buffers: concurrent readers through a one-frame cache all get verified bytes, and getMany reads framed chunks into lent buffers (decision 207; frame-cache.test.ts proves the deferred give-back)', async (t) => {
  const { files, index } = await setUp(t);
  const store = new PackedChunkStore({ packs: files, index, packTargetBytes: 64 * 1024 * 1024, frameCodec: 'zstd', frameTargetBytes: 128 * 1024 });
  const writer = store.openWriter();
  const raws = textChunks(24, 64 * 1024, 'pooled');
  for (const raw of raws) await writer.putFramed!(acme, chunkIdOf(raw), raw);
  await writer.flush();
  // A cache of one frame: every frame evicts the one before, often while readers of that one still wait for it,
  // and frames decode again and again into the same few pooled buffers.
  const fresh = new PackedChunkStore({ packs: files, index, frameCacheBytes: 1 });
  const order = raws.map((_, i) => (i * 7) % raws.length);
  for (let round = 0; round < 3; round++) {
    const got = await Promise.all([...order, ...order].map((i) => fresh.get(acme, chunkIdOf(raws[i]!), 'zstd')));
    got.forEach((b, k) => assert.deepEqual(Buffer.from(b), raws[[...order, ...order][k]!], `round ${round}, read ${k}`));
  }
  const buffers = new ReadBuffers();
  const many = await Promise.all(fresh.getMany(acme, raws.map((r) => ({ id: chunkIdOf(r), codec: 'zstd' as const, rawLengthHint: r.length })), true, buffers));
  many.forEach((b, i) => assert.deepEqual(Buffer.from(b), raws[i]));
  for (const b of many) buffers.giveBack(b);
  assert.ok(buffers.idleBytes >= 64 * 1024, 'the chunks were copied into lent buffers, and went back');
});

test('FrameBuffers: a buffer comes back for a frame of about its size, never a detached one, and idle bytes are capped', () => {
  const pool = new FrameBuffers();
  const a = pool.acquire(4 * 1024 * 1024 + 10);
  assert.equal(a.byteLength, 5 * 1024 * 1024, 'whole MiB');
  pool.release(a);
  assert.equal(pool.acquire(4 * 1024 * 1024 + 500_000), a, 'reused for a frame of about the same size');
  pool.release(a);
  assert.notEqual(pool.acquire(1024), a, 'not for a much smaller one');
  const moved = pool.acquire(2 * 1024 * 1024);
  structuredClone(moved, { transfer: [moved] });
  pool.release(moved);
  assert.equal(pool.idleBytes, 5 * 1024 * 1024, 'a detached buffer is dropped');
  for (let k = 0; k < 10; k++) pool.release(new ArrayBuffer(8 * 1024 * 1024));
  assert.ok(pool.idleBytes <= MAX_IDLE_FRAME_BUFFER_BYTES);
});

test('a damaged frame is reported on read for the chunks in it (undecodable or corrupt), never returned', async (t) => {
  const { files, index } = await setUp(t);
  const store = new PackedChunkStore({ packs: files, index, frameTargetBytes: 128 * 1024 });
  const raws = textChunks(4, 64 * 1024, 'damaged-frame');
  const writer = store.openWriter();
  for (const raw of raws) await writer.putFramed!(acme, chunkIdOf(raw), raw);
  await writer.flush();
  const loc = (await index.locate(acme, chunkIdOf(raws[0]!), 'zstd'))!;
  const file = files.pathOf(acme, loc.pack_id);
  const bytes = readFileSync(file);
  bytes[loc.pack_offset + loc.frame!.frame_length - 20]! ^= 0x5a;
  writeFileSync(file, bytes);
  const reader = new PackedChunkStore({ packs: new FsPackFiles({ root: files.root }), index });
  for (const raw of raws.slice(0, 2)) {
    await assert.rejects(reader.get(acme, chunkIdOf(raw), 'zstd'), (err: Error & { details?: Record<string, unknown> }) => ['corrupt', 'undecodable'].includes(String(err.details?.['reason'])));
  }
  assert.deepEqual(Buffer.from(await reader.get(acme, chunkIdOf(raws[2]!), 'zstd')), raws[2], 'the next frame is intact');
});

test('packs written before frames (version 1) stay readable, and are listed by parsePack', async (t) => {
  const { files, index, make } = await setUp(t);
  const raw = corpusFile('json', 30_000, 'v1');
  const id = chunkIdOf(raw);
  const encoded = await encodeChunk(raw);
  const v2 = buildPack([{ id, codec: 'zstd', data: encoded.data }]);
  const v1 = Buffer.from(v2.bytes);
  PACK_MAGIC_V1.copy(v1, 0);
  const packId = 'pk_' + '1'.repeat(32);
  await files.write(acme, packId, v1);
  await index.insertPack({ pack_id: packId, scope: acme, size_bytes: v1.length, entry_count: 1, created_at: new Date().toISOString() }, [
    { chunk_id: id, codec: 'zstd', pack_offset: v2.entries[0]!.offset, stored_length: encoded.data.length },
  ]);
  assert.deepEqual(parsePack(v1).map((e) => e.id), [id]);
  assert.deepEqual(Buffer.from(await make().get(acme, id, 'zstd')), raw);
});

test('the stored form of a framed chunk whose frame was stored raw is still a zstd frame (exports decode it as zstd)', async (t) => {
  const { files, index } = await setUp(t);
  const store = new PackedChunkStore({ packs: files, index });
  const raw = Buffer.from('tiny');
  const writer = store.openWriter();
  await writer.putFramed!(acme, chunkIdOf(raw), raw);
  await writer.flush();
  const stored = await new PackedChunkStore({ packs: files, index }).readStored(acme, chunkIdOf(raw), 'zstd');
  assert.deepEqual(Buffer.from(zstdDecompressSync(stored)), raw);
});

test('a writer is done with the caller\'s bytes when put resolves: overwriting them afterwards changes nothing stored (decision 181)', async (t) => {
  const { make } = await setUp(t);
  const store = make();
  const writer = store.openWriter();
  // A shared buffer reused for every chunk, as the chunker reuses its windows: sizes from pooled (≥ 16 KiB) to small.
  const scratch = Buffer.alloc(200 * 1024);
  const originals = [...chunks(12, 40 * 1024, 'reuse'), ...chunks(4, 3000, 'reuse-small'), corpusFile('log-like', 150 * 1024, 'reuse-text')];
  for (const raw of originals) {
    const view = scratch.subarray(0, raw.length);
    view.set(raw);
    const framed = raw.length > 100 * 1024 && writer.putFramed;
    if (framed) await writer.putFramed!(acme, chunkIdOf(raw), view);
    else await writer.put(acme, chunkIdOf(raw), 'raw', view);
    scratch.fill(0xee); // the caller reuses its buffer at once
    // A pending (not yet written) chunk reads back whole too.
    assert.ok(Buffer.from(await store.get(acme, chunkIdOf(raw), framed ? 'zstd' : 'raw')).equals(raw));
  }
  await writer.flush();
  for (const raw of originals) {
    const codec = raw.length > 100 * 1024 && writer.putFramed ? 'zstd' : 'raw';
    assert.ok(Buffer.from(await store.get(acme, chunkIdOf(raw), codec)).equals(raw), 'durable copy intact');
  }
});

/** PackFiles that count reads (per chunk and per run) and can be told what a run read returns. */
function countingPacks(files: FsPackFiles) {
  const counts = { reads: 0, runs: 0, runBytes: 0 };
  const packs: PackFiles & { counts: typeof counts } = {
    counts,
    write: (...a) => files.write(...a),
    writeParts: (...a) => files.writeParts(...a),
    read: (...a) => {
      counts.reads++;
      return files.read(...a);
    },
    readInto: (scope, packId, offset, targets) => {
      counts.runs++;
      counts.runBytes += targets.reduce((n, b) => n + b.byteLength, 0);
      return files.readInto(scope, packId, offset, targets);
    },
    delete: (...a) => files.delete(...a),
    list: (s) => files.list(s),
    scopes: () => files.scopes(),
  };
  return packs;
}

async function storedObject(store: PackedChunkStore, raws: readonly Buffer[], codecOf: (i: number) => 'raw' | 'zstd' = () => 'raw') {
  const writer = store.openWriter();
  const requests = [];
  for (const [i, raw] of raws.entries()) {
    const encoded = codecOf(i) === 'zstd' ? await encodeChunk(raw) : { codec: 'raw' as const, data: raw };
    const { codec, data } = encoded;
    assert.equal(codec, codecOf(i));
    await writer.put(acme, chunkIdOf(raw), codec, data);
    requests.push({ id: chunkIdOf(raw), codec, rawLengthHint: raw.length });
  }
  await writer.flush();
  return requests;
}

test('getMany (decision 199): one index query and one pack read per run of neighbours, the same verified bytes as get', async (t) => {
  const { files, make } = await setUp(t);
  const packs = countingPacks(files);
  const raws = [...chunks(30, 20 * 1024, 'many'), corpusFile('log-like', 30_000, 'many-text')];
  const requests = await storedObject(make(packs, 4 * 1024 * 1024), raws, (i) => (i === raws.length - 1 ? 'zstd' : 'raw'));
  const reader = make(packs, 4 * 1024 * 1024);
  const got = await Promise.all(reader.getMany(acme, requests));
  assert.deepEqual(got.map((b) => Buffer.from(b)), raws);
  assert.equal(packs.counts.reads, 0, 'no chunk was read alone');
  assert.equal(packs.counts.runs, 1, 'the 31 entries of one pack, headers between them, came in one read');
  // Requests in another order, repeated and skipping some: each answer is still its own chunk.
  const picked = [5, 3, 3, 20, 21, 22, 0];
  const again = await Promise.all(reader.getMany(acme, picked.map((i) => requests[i]!)));
  assert.deepEqual(again.map((b) => Buffer.from(b)), picked.map((i) => raws[i]));
});

test('getMany: a damaged chunk in a run fails alone, naming itself; a chunk past the end of a torn pack is corrupt; an unknown one is missing', async (t) => {
  const { files, make } = await setUp(t);
  const raws = chunks(12, 16 * 1024, 'many-damage');
  const store = make();
  const requests = await storedObject(store, raws);
  const [pack] = await files.list(acme);
  const file = files.pathOf(acme, pack!.packId);
  const bytes = readFileSync(file);
  const entries = parsePack(bytes);
  // Flip a byte inside chunk 4, and cut the pack in the middle of chunk 10.
  bytes[entries[4]!.offset + 100]! ^= 0xff;
  writeFileSync(file, bytes.subarray(0, entries[10]!.offset + 1000));
  const unknown = corpusFile('random', 1000, 'many-unknown');
  const all = [...requests, { id: chunkIdOf(unknown), codec: 'raw' as const, rawLengthHint: unknown.length }];
  const settled = await Promise.allSettled(make().getMany(acme, all));
  const failure = (i: number) => {
    const s = settled[i]!;
    assert.equal(s.status, 'rejected', `request ${i}`);
    const err = (s as PromiseRejectedResult).reason as { code?: string; details?: Record<string, unknown> };
    return [err.code, err.details?.['reason'], err.details?.['chunk_id']];
  };
  for (const i of [0, 1, 2, 3, 5, 6, 7, 8, 9]) assert.deepEqual(Buffer.from((settled[i] as PromiseFulfilledResult<Uint8Array>).value), raws[i], `chunk ${i}`);
  assert.deepEqual(failure(4), ['rehydration_failed', 'corrupt', requests[4]!.id]);
  assert.deepEqual(failure(10), ['rehydration_failed', 'corrupt', requests[10]!.id]);
  assert.deepEqual(failure(11), ['rehydration_failed', 'corrupt', requests[11]!.id]);
  assert.deepEqual(failure(12), ['rehydration_failed', 'missing', chunkIdOf(unknown)]);
});

test('getMany: entries a repack moved between the lookup and the read are read again alone from where they are now', async (t) => {
  const { files, make, index } = await setUp(t);
  const raws = chunks(8, 16 * 1024, 'many-moved');
  const requests = await storedObject(make(), raws);
  // The lookup answers where the entries were; the pack is gone by the time the run is read.
  const stale = await index.locateMany(acme, requests.map((r) => ({ chunkId: r.id, codec: r.codec })));
  const [old] = await files.list(acme);
  const moved = buildPack(raws.map((raw) => ({ id: chunkIdOf(raw), codec: 'raw' as const, data: raw })));
  await files.write(acme, 'pk_' + 'b'.repeat(32), moved.bytes);
  for (const [i, r] of requests.entries()) {
    assert.ok(await index.relocate(acme, r.id, 'raw', old!.packId, { pack_id: 'pk_' + 'b'.repeat(32), pack_offset: moved.entries[i]!.offset, stored_length: raws[i]!.length }));
  }
  await files.delete(acme, old!.packId);
  const store = make();
  store.index.locateMany = async () => stale;
  const got = await Promise.all(store.getMany(acme, requests));
  assert.deepEqual(got.map((b) => Buffer.from(b)), raws);
});
