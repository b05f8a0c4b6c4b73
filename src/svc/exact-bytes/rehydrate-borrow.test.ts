/**
 * Whole-object rehydration with borrowed buffers (decision 173): the bytes
 * are exact even though buffers are reused, each borrowed piece stays intact
 * until the consumer asks for the next one, the first piece is never
 * borrowed, range reads never borrow, and a real pack store reads into
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

test('a consumer that stops early gives back the piece it held; range reads never borrow', async (t) => {
  const { inner, data, result } = await storedObject(t);
  const store = new BorrowingStore(inner);
  const borrow = new ReadBuffers();
  const r = await openRehydration(result.chunks, { store: store as unknown as ChunkStore, scope, expectedSha256: result.sha256, borrow });
  let seen = 0;
  for await (const _ of r.stream) if (++seen === 3) break;
  const idleAfterStop = borrow.idleBytes;
  assert.ok(idleAfterStop > 0, 'the held piece (and earlier ones) came back');

  const ranged = new BorrowingStore(inner);
  const part = await openRehydration(result.chunks, { store: ranged as unknown as ChunkStore, scope, range: { start: 1000, end: 300_000 }, borrow });
  assert.equal(part.borrowed, false);
  const got: Uint8Array[] = [];
  for await (const p of part.stream) got.push(p);
  assert.ok(Buffer.concat(got).equals(data.subarray(1000, 300_001)));
  assert.equal(ranged.borrowedReads, 0);
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
