/**
 * Rehydration with borrowed buffers (decision 173; ranges too since decision
 * 195): the bytes are exact even though buffers are reused, each borrowed
 * piece stays intact until the consumer asks for the next one, the first
 * piece is never borrowed, a verified-chunk cache in front of the store never
 * keeps (or hands out) memory that is lent, and a real pack store reads into
 * borrowed memory.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setImmediate as tick } from 'node:timers/promises';
import { test } from 'node:test';
import { corpusFile } from '../../../bench/corpus/corpus-files.ts';
import type { ChunkCodec } from '../chunking/chunk-codec.ts';
import { chunkScopeFor, type ChunkScope } from '../chunk-store/chunk-scope.ts';
import type { ChunkStore } from '../chunk-store/chunk-store.ts';
import { FsChunkStore } from '../chunk-store/fs-chunk-store.ts';
import { ReadBuffers } from '../chunk-store/read-buffers.ts';
import { VerifiedChunkCache } from '../chunk-store/verified-chunk-cache.ts';
import type { SvcError } from '../errors.ts';
import { tempPackStore } from '../../../test/helpers/temp-pack-store.ts';
import { ingest } from './ingest.ts';
import { openRehydration } from './rehydrate.ts';

const SMALL = { minSize: 2048, avgSize: 8192, maxSize: 32768 };
const scope = chunkScopeFor('tenant', 'acme');

async function* pieces(data: Uint8Array, size = 65_536): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < data.length; offset += size) yield data.subarray(offset, offset + size);
}

/** A store that copies every chunk into a borrowed buffer when asked to (as a pack store reads into one), and counts. */
class BorrowingStore {
  borrowedReads = 0;
  plainReads = 0;
  readonly inner: ChunkStore;
  constructor(inner: ChunkStore) {
    this.inner = inner;
  }
  async get(s: ChunkScope, id: string, codec: ChunkCodec, hint?: number, sequential?: boolean, buffers?: ReadBuffers): Promise<Uint8Array> {
    const bytes = await this.inner.get(s, id, codec, hint, sequential);
    if (!buffers) {
      this.plainReads++;
      return bytes;
    }
    this.borrowedReads++;
    const out = buffers.borrow(bytes.length);
    out.set(bytes);
    return out;
  }
}

async function storedObject(t: { after(fn: () => void): void }, size = 600_000) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'svc-borrow-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const inner = new FsChunkStore({ root, fsyncFiles: false });
  const data = corpusFile('random', size, 'rehydrate-borrow');
  const result = await ingest(pieces(data), { store: inner, scope, mode: 'enforce', chunking: SMALL });
  return { inner, data, result };
}

test('every borrowed piece stays intact while the consumer holds it, and the object comes back exact', async (t) => {
  const { inner, data, result } = await storedObject(t);
  assert.ok(result.chunks.length > 20);
  const store = new BorrowingStore(inner);
  const borrow = new ReadBuffers();
  const r = await openRehydration(result.chunks, { store: store as unknown as ChunkStore, scope, expectedSha256: result.sha256, borrow });
  assert.equal(r.borrowed, true);
  let offset = 0;
  for await (const piece of r.stream) {
    // Let the read-ahead run (it borrows, and would reuse a buffer given back too early) before looking at the piece.
    for (let k = 0; k < 5; k++) await tick();
    assert.ok(Buffer.from(piece).equals(data.subarray(offset, offset + piece.length)), `piece at ${offset} intact while held`);
    offset += piece.length;
  }
  assert.equal(offset, data.length);
  assert.equal(store.plainReads, 1, 'the first chunk is not borrowed');
  assert.equal(store.borrowedReads, result.chunks.length - 1);
  assert.ok(borrow.idleBytes > 0, 'buffers came back for reuse');
});

test('a consumer that stops early gives back the piece it held', async (t) => {
  const { inner, result } = await storedObject(t);
  const store = new BorrowingStore(inner);
  const borrow = new ReadBuffers();
  const r = await openRehydration(result.chunks, { store: store as unknown as ChunkStore, scope, expectedSha256: result.sha256, borrow });
  let seen = 0;
  for await (const _ of r.stream) if (++seen === 3) break;
  assert.ok(borrow.idleBytes > 0, 'the held piece (and earlier ones) came back');
});

/** The chunks a range of `result` overlaps. */
const overlapped = (chunks: ReadonlyArray<{ offset: number; length: number }>, start: number, end: number) => chunks.filter((c) => c.offset <= end && c.offset + c.length > start).length;

test('range reads borrow too (decision 195): each piece intact while held, every range exact, buffers reused', async (t) => {
  const { inner, data, result } = await storedObject(t);
  const store = new BorrowingStore(inner);
  const borrow = new ReadBuffers();
  const ranges = [
    [1000, 300_000],
    [0, 0],
    [123_456, 123_456 + 65_535],
    [data.length - 70_000, data.length - 1],
  ] as const;
  let expectedBorrowed = 0;
  for (const [start, end] of ranges) {
    const part = await openRehydration(result.chunks, { store: store as unknown as ChunkStore, scope, range: { start, end }, borrow });
    assert.equal(part.borrowed, true);
    const got: Buffer[] = [];
    let offset = start;
    for await (const p of part.stream) {
      for (let k = 0; k < 5; k++) await tick(); // the read-ahead runs (and borrows) meanwhile
      assert.ok(Buffer.from(p).equals(data.subarray(offset, offset + p.length)), `range ${start}-${end}: piece at ${offset} intact while held`);
      offset += p.length;
      got.push(Buffer.from(p));
    }
    assert.ok(Buffer.concat(got).equals(data.subarray(start, end + 1)), `range ${start}-${end} exact`);
    expectedBorrowed += overlapped(result.chunks, start, end) - 1; // the first chunk of each read is not borrowed
  }
  assert.equal(store.borrowedReads, expectedBorrowed);
  assert.equal(store.plainReads, ranges.length);
  assert.ok(borrow.idleBytes > 0, 'buffers came back for reuse');
});

test('range reads through a verified-chunk cache: what the cache keeps is never lent, and stays exact while the pool is reused', async (t) => {
  const { inner, data, result } = await storedObject(t);
  const store = new BorrowingStore(inner);
  const cache = new VerifiedChunkCache(store as unknown as ChunkStore);
  const borrow = new ReadBuffers();
  const read = async (start: number, end: number) => {
    const part = await openRehydration(result.chunks, { store: cache, scope, range: { start, end }, borrow });
    const got: Buffer[] = [];
    for await (const p of part.stream) got.push(Buffer.from(p));
    return Buffer.concat(got);
  };
  assert.ok((await read(5000, 400_000)).equals(data.subarray(5000, 400_001)));
  assert.equal(store.borrowedReads, 0, 'a chunk the cache keeps is read into memory of its own');
  const misses = cache.counters.misses;
  // Whole-object reads borrow from the same pool (past the cache, which does not keep them) and reuse its buffers.
  const whole = await openRehydration(result.chunks, { store: cache, scope, expectedSha256: result.sha256, borrow });
  for await (const _ of whole.stream);
  assert.ok(store.borrowedReads > 0);
  assert.ok((await read(5000, 400_000)).equals(data.subarray(5000, 400_001)), 'cached chunks intact after the pool was reused');
  assert.equal(cache.counters.misses, misses + (result.chunks.length - overlapped(result.chunks, 5000, 400_000)), 'the second range came from the cache');
});

test('a pack store reads whole-object chunks into borrowed buffers and gives back what it decoded from', async (t) => {
  const store = (await tempPackStore(t, 'svc-borrow-packs-')).make({ frameCodec: 'none' }); // the configured default
  for (const kind of ['random', 'log-like'] as const) {
    const data = corpusFile(kind, 700_000, `borrow-packs-${kind}`);
    const result = await ingest(pieces(data), { store, scope, mode: 'enforce', chunking: SMALL });
    assert.ok(result.chunks.some((c) => c.codec === (kind === 'random' ? 'raw' : 'zstd')));
    const borrow = new ReadBuffers();
    const r = await openRehydration(result.chunks, { store, scope, expectedSha256: result.sha256, borrow });
    const got: Buffer[] = [];
    for await (const p of r.stream) got.push(Buffer.from(p)); // copies: the pieces are lent
    assert.ok(Buffer.concat(got).equals(data), `${kind} exact`);
    assert.ok(borrow.idleBytes > 0, `${kind}: reads borrowed and gave back`);
  }
});

test('a pack store reads range chunks, raw and compressed, into reused borrowed buffers (decision 195)', async (t) => {
  const store = (await tempPackStore(t, 'svc-borrow-pack-ranges-')).make({ frameCodec: 'none' });
  for (const kind of ['random', 'log-like'] as const) {
    const data = corpusFile(kind, 900_000, `borrow-pack-ranges-${kind}`);
    const result = await ingest(pieces(data), { store, scope, mode: 'enforce', chunking: SMALL });
    const borrow = new ReadBuffers();
    const backings = new Set<ArrayBufferLike>();
    let pieceCount = 0;
    for (let k = 0; k < 12; k++) {
      const start = (k * 70_001) % (data.length - 200_000);
      const part = await openRehydration(result.chunks, { store, scope, range: { start, end: start + 199_999 }, borrow });
      const got: Buffer[] = [];
      for await (const p of part.stream) {
        backings.add(p.buffer);
        pieceCount++;
        got.push(Buffer.from(p));
      }
      assert.ok(Buffer.concat(got).equals(data.subarray(start, start + 200_000)), `${kind} range ${k} exact`);
    }
    // Read into fresh buffers, every piece would have a backing of its own.
    assert.ok(backings.size < pieceCount / 2, `${kind}: ${backings.size} backing buffers for ${pieceCount} pieces`);
  }
});

async function packStore(t: { after(fn: () => Promise<void>): void }) {
  const temp = await tempPackStore(t, 'svc-borrow-zstd-');
  return { packs: temp.files, store: temp.make({ frameCodec: 'none' }) };
}

test('compressed chunks of a whole-object restore decode into borrowed buffers (decision 177)', async (t) => {
  const { store } = await packStore(t);
  const data = corpusFile('log-like', 900_000, 'borrow-zstd');
  const result = await ingest(pieces(data), { store, scope, mode: 'enforce', chunking: SMALL });
  const compressed = result.chunks.filter((c) => c.codec === 'zstd').length;
  assert.ok(compressed > 40, `log-like data compresses (${compressed} zstd chunks)`);
  const borrow = new ReadBuffers();
  const r = await openRehydration(result.chunks, { store, scope, expectedSha256: result.sha256, borrow });
  const backings = new Set<ArrayBufferLike>();
  const got: Buffer[] = [];
  for await (const p of r.stream) {
    backings.add(p.buffer);
    got.push(Buffer.from(p));
  }
  assert.ok(Buffer.concat(got).equals(data), 'exact');
  // Decoded into fresh buffers, every piece would have a backing of its own; borrowed ones are reused.
  assert.ok(backings.size < result.chunks.length / 4, `${backings.size} backing buffers for ${result.chunks.length} chunks`);
});

test('a damaged compressed chunk read into a borrowed buffer fails naming it, and later restores are whole', async (t) => {
  const { store, packs } = await packStore(t);
  const data = corpusFile('json', 600_000, 'borrow-zstd-damaged');
  const result = await ingest(pieces(data), { store, scope, mode: 'enforce', chunking: SMALL });
  const victim = result.chunks.filter((c) => c.codec === 'zstd')[3]!;
  const loc = (await store.locate(scope, victim.id, victim.codec))!;
  const file = packs.pathOf(scope, loc.pack_id);
  const bytes = readFileSync(file);
  for (let k = 8; k < Math.min(loc.stored_length, 64); k++) bytes[loc.pack_offset + k]! ^= 0x5a;
  writeFileSync(file, bytes);

  const borrow = new ReadBuffers();
  const r = await openRehydration(result.chunks, { store, scope, expectedSha256: result.sha256, borrow });
  await assert.rejects(
    async () => {
      for await (const _ of r.stream) void _;
    },
    (err: SvcError) => err.code === 'rehydration_failed' && err.details?.['chunk_id'] === victim.id && ['undecodable', 'corrupt'].includes(String(err.details?.['reason'])),
  );

  const other = corpusFile('log-like', 400_000, 'borrow-zstd-after');
  const again = await ingest(pieces(other), { store, scope, mode: 'enforce', chunking: SMALL });
  const r2 = await openRehydration(again.chunks, { store, scope, expectedSha256: again.sha256, borrow });
  const got: Buffer[] = [];
  for await (const p of r2.stream) got.push(Buffer.from(p));
  assert.ok(Buffer.concat(got).equals(other), 'the decoder recovered');
});
