import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync, unlinkSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { corpusFile } from '../../../bench/corpus/corpus-files.ts';
import { SvcError } from '../errors.ts';
import type { ChunkCodec } from '../chunking/chunk-codec.ts';
import type { ChunkScope } from '../chunk-store/chunk-scope.ts';
import { chunkScopeFor } from '../chunk-store/chunk-scope.ts';
import type { ChunkStore } from '../chunk-store/chunk-store.ts';
import { FsChunkStore } from '../chunk-store/fs-chunk-store.ts';
import type { ByteRangeRequest } from './byte-range.ts';
import { chunkListSha256 } from './chunk-list-digest.ts';
import { ingest } from './ingest.ts';
import { ChunkReadAhead, openRehydration } from './rehydrate.ts';

const SMALL = { minSize: 2048, avgSize: 8192, maxSize: 32768 };
const scope = chunkScopeFor('tenant', 'acme');

async function* pieces(data: Uint8Array, size = 65_536): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < data.length; offset += size) yield data.subarray(offset, offset + size);
}

async function collect(stream: AsyncIterable<Uint8Array>): Promise<Buffer> {
  const parts: Uint8Array[] = [];
  for await (const p of stream) parts.push(p);
  return Buffer.concat(parts);
}

/** A store with one ingested object, shared by the read-only tests below. */
async function storedObject(t: { after(fn: () => void): void }, kind: 'random' | 'log-like' = 'log-like', size = 1 << 20) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'svc-rehydrate-'));
  t.after(() => rmSync(root, { recursive: true, force: true }));
  const store = new FsChunkStore({ root, fsyncFiles: false });
  const data = corpusFile(kind, size, `rehydrate-${kind}`);
  const result = await ingest(pieces(data), { store, scope, mode: 'enforce', chunking: SMALL });
  return { store, data, result };
}

async function readRange(store: ChunkStore, chunks: Parameters<typeof openRehydration>[0], range: ByteRangeRequest) {
  const r = await openRehydration(chunks, { store, scope, range });
  const bytes = await collect(r.stream);
  assert.equal(bytes.length, r.contentLength);
  return { bytes, range: r.range };
}

const failure = (reason: string, chunkId?: string) => (err: unknown) =>
  err instanceof SvcError && err.code === 'rehydration_failed' && err.details?.['reason'] === reason && (chunkId === undefined || err.details?.['chunk_id'] === chunkId);

test('edge ranges return exactly the requested bytes', async (t) => {
  const { store, data, result } = await storedObject(t);
  const boundary = result.chunks[3]!.offset;
  const cases: Array<[ByteRangeRequest, number, number]> = [
    [{ start: 0, end: 0 }, 0, 1],
    [{ start: data.length - 1 }, data.length - 1, data.length],
    [{ suffix: 1 }, data.length - 1, data.length],
    [{ suffix: 5000 }, data.length - 5000, data.length],
    [{ start: boundary - 1, end: boundary }, boundary - 1, boundary + 1],
    [{ start: boundary, end: boundary }, boundary, boundary + 1],
    [{ start: 10, end: data.length + 1000 }, 10, data.length],
    [{ start: result.chunks[1]!.offset, end: result.chunks[6]!.offset - 1 }, result.chunks[1]!.offset, result.chunks[6]!.offset],
  ];
  for (const [request, from, to] of cases) {
    const { bytes } = await readRange(store, result.chunks, request);
    assert.deepEqual(bytes, data.subarray(from, to), JSON.stringify(request));
  }
});

test('random ranges are exact', async (t) => {
  const { store, data, result } = await storedObject(t, 'random');
  let seed = 12345;
  const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
  for (let k = 0; k < 40; k++) {
    const start = next(data.length);
    const end = start + next(200_000);
    const { bytes } = await readRange(store, result.chunks, { start, end });
    assert.deepEqual(bytes, data.subarray(start, Math.min(end + 1, data.length)), `${start}-${end}`);
  }
});

test('a range reads only the chunks it overlaps', async (t) => {
  const { store, result } = await storedObject(t);
  const reads: string[] = [];
  const counting: ChunkStore = Object.create(store, {
    get: { value: (s: ChunkScope, id: string, codec: ChunkCodec, hint?: number) => (reads.push(id), store.get(s, id, codec, hint)) },
  });
  const c = result.chunks;
  const r = await openRehydration(c, { store: counting, scope, range: { start: c[5]!.offset + 10, end: c[7]!.offset + 10 }, prefetch: 8 });
  await collect(r.stream);
  assert.deepEqual(reads, [c[5]!.id, c[6]!.id, c[7]!.id]);
});

test('a whole-object read marks its chunk reads sequential; a range does not (caches keep only range reads)', async (t) => {
  const { store, result } = await storedObject(t);
  const marks: boolean[] = [];
  const marking: ChunkStore = Object.create(store, {
    get: { value: (s: ChunkScope, id: string, codec: ChunkCodec, hint?: number, sequential?: boolean) => (marks.push(sequential === true), store.get(s, id, codec, hint)) },
  });
  const c = result.chunks;
  await collect((await openRehydration(c, { store: marking, scope, expectedSha256: result.sha256 })).stream);
  assert.equal(marks.length, c.length);
  assert.ok(marks.every(Boolean), 'every read of a whole object is sequential');
  marks.length = 0;
  await collect((await openRehydration(c, { store: marking, scope, range: { start: c[2]!.offset, end: c[4]!.offset } })).stream);
  assert.deepEqual(marks, [false, false, false]);
});

test('an unsatisfiable range fails before any chunk is read', async (t) => {
  const { store, data, result } = await storedObject(t);
  await assert.rejects(openRehydration(result.chunks, { store, scope, range: { start: data.length } }), (err: unknown) => err instanceof SvcError && err.code === 'range_not_satisfiable');
});

test('a corrupted first chunk fails the open, naming the chunk', async (t) => {
  const { store, result } = await storedObject(t, 'random');
  const first = result.chunks[0]!;
  const file = store.pathOf(scope, first.id, first.codec);
  const bytes = readFileSync(file);
  bytes[0] = bytes[0]! ^ 1;
  writeFileSync(file, bytes);
  await assert.rejects(openRehydration(result.chunks, { store, scope, expectedSha256: result.sha256 }), failure('corrupt', first.id));
});

test('a missing chunk in the middle errors the stream, naming the chunk', async (t) => {
  const { store, result } = await storedObject(t);
  const victim = result.chunks[10]!;
  unlinkSync(store.pathOf(scope, victim.id, victim.codec));
  const r = await openRehydration(result.chunks, { store, scope, expectedSha256: result.sha256 });
  await assert.rejects(collect(r.stream), failure('missing', victim.id));
});

test('a range over intact chunks still works when another chunk is damaged', async (t) => {
  const { store, data, result } = await storedObject(t);
  const victim = result.chunks[10]!;
  unlinkSync(store.pathOf(scope, victim.id, victim.codec));
  const { bytes } = await readRange(store, result.chunks, { start: 0, end: result.chunks[2]!.offset });
  assert.deepEqual(bytes, data.subarray(0, result.chunks[2]!.offset + 1));
});

test('an intact chunk list digest verifies each byte once: the object is not hashed again as a whole (decision 178)', async (t) => {
  const { store, data, result } = await storedObject(t);
  const listDigest = chunkListSha256(result.chunks);
  // A wrong object digest would end the stream in an error if the bytes were hashed as a whole; with the list
  // digest intact they are not, since every chunk is verified against its id on the way out.
  const r = await openRehydration(result.chunks, { store, scope, expectedSha256: '0'.repeat(64), expectedChunkListSha256: listDigest });
  assert.deepEqual(await collect(r.stream), data);
  // A range is verified by its chunks either way; a full-length range counts as the whole object.
  const full = await openRehydration(result.chunks, { store, scope, range: { start: 0 }, expectedSha256: result.sha256, expectedChunkListSha256: listDigest });
  assert.deepEqual(await collect(full.stream), data);
});

test('a chunk list that no longer matches its digest fails before any chunk is read', async (t) => {
  const { store, result } = await storedObject(t);
  const listDigest = chunkListSha256(result.chunks);
  // Two valid chunks of the same length swapped: every chunk still verifies against its id, the object does not.
  const [a, b] = [result.chunks[2]!, result.chunks[5]!];
  const swapped = result.chunks.map((c, i) => (i === 2 ? { ...b, offset: a.offset, length: b.length } : i === 5 ? { ...a, offset: b.offset, length: a.length } : c));
  // Re-tile the offsets so the list is still contiguous.
  let offset = 0;
  for (const c of swapped) {
    c.offset = offset;
    offset += c.length;
  }
  let reads = 0;
  const counting = { get: (...args: Parameters<FsChunkStore['get']>) => (reads++, store.get(...args)) } as unknown as ChunkStore;
  await assert.rejects(openRehydration(swapped, { store: counting, scope, expectedSha256: result.sha256, expectedChunkListSha256: listDigest }), failure('chunk_list_mismatch'));
  assert.equal(reads, 0, 'nothing was read');
  // Without a list digest the same swap is still caught, by the whole-object hash at the end of the stream.
  const r = await openRehydration(swapped, { store, scope, expectedSha256: result.sha256 });
  await assert.rejects(collect(r.stream), failure('object_digest_mismatch'));
});

test('a whole object that does not match the manifest digest ends in an error', async (t) => {
  const { store, result } = await storedObject(t);
  const r = await openRehydration(result.chunks, { store, scope, expectedSha256: '0'.repeat(64) });
  await assert.rejects(collect(r.stream), failure('object_digest_mismatch'));
});

test('a chunk list with a gap is refused as inconsistent', async (t) => {
  const { store, result } = await storedObject(t);
  const gapped = result.chunks.filter((_, k) => k !== 4);
  await assert.rejects(openRehydration(gapped, { store, scope }), failure('manifest_inconsistent'));
});

/**
 * A store over an ingested object whose reads complete when the test says,
 * in any order, counting what is in flight.
 */
function controlledStore(inner: ChunkStore) {
  const waiting: Array<{ id: string; release: () => void }> = [];
  const started: string[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  const store = {
    get(s: ChunkScope, id: string, codec: ChunkCodec, hint?: number): Promise<Uint8Array> {
      started.push(id);
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      return new Promise<void>((release) => waiting.push({ id, release })).then(() => inner.get(s, id, codec, hint)).finally(() => inFlight--);
    },
  };
  return { store: store as unknown as ChunkStore, waiting, started, stats: () => ({ inFlight, maxInFlight }) };
}

const tick = () => new Promise((r) => setImmediate(r));

test('read-ahead keeps at most depth reads and maxBytes in flight, and yields in chunk order whatever order reads finish in', async (t) => {
  const { store: inner, data, result } = await storedObject(t);
  const refs = result.chunks;
  assert.ok(refs.length > 20);
  const { store, waiting, started } = controlledStore(inner);
  const maxBytes = refs[0]!.length + refs[1]!.length + refs[2]!.length;
  const reader = new ChunkReadAhead(refs, store, scope, 8, maxBytes);
  const out: Uint8Array[] = [];
  for (let k = 0; k < refs.length; k++) {
    const next = reader.next();
    // The bounds hold at every step: ≤ 8 reads, ≤ maxBytes (the head read always allowed).
    assert.ok(reader.inFlight.reads <= 8);
    assert.ok(reader.inFlight.reads <= 1 || reader.inFlight.bytes <= maxBytes, `step ${k}: ${reader.inFlight.bytes} bytes ahead`);
    // Finish the pending reads last-started first: completion order is the reverse of chunk order.
    while (waiting.length > 0) waiting.pop()!.release();
    out.push(await next);
  }
  assert.deepEqual(started, refs.map((r) => r.id), 'each chunk read once, started in order');
  assert.ok(Buffer.concat(out).equals(data));
});

test('read-ahead by count: with small chunks, depth reads are started before the first is consumed', async (t) => {
  const { store: inner, result } = await storedObject(t);
  const { store, waiting, stats } = controlledStore(inner);
  const reader = new ChunkReadAhead(result.chunks, store, scope, 6, Number.POSITIVE_INFINITY);
  const first = reader.next();
  // 1 handed out + 6 ahead of the consumer.
  assert.equal(stats().maxInFlight, 7);
  assert.equal(reader.inFlight.reads, 6);
  for (const w of waiting.splice(0)) w.release();
  await first;
  reader.abandon();
  assert.deepEqual(reader.inFlight, { reads: 0, bytes: 0 });
});

test('a corrupt chunk in the middle of a read-ahead window is reported by id, after every chunk before it, and nothing after it is yielded', async (t) => {
  const { store, data, result } = await storedObject(t, 'random');
  const bad = result.chunks[10]!;
  const file = store.pathOf(scope, bad.id, bad.codec);
  const stored = readFileSync(file);
  stored[stored.length >> 1] = stored[stored.length >> 1]! ^ 0xff;
  writeFileSync(file, stored);
  // The window (16 reads) covers chunks 1..16, so chunk 10 fails while 1..9 are still pending.
  const r = await openRehydration(result.chunks, { store, scope, expectedSha256: result.sha256, prefetch: 16 });
  const got: Uint8Array[] = [];
  await assert.rejects(async () => {
    for await (const piece of r.stream) got.push(piece);
  }, failure('corrupt', bad.id));
  const yielded = Buffer.concat(got);
  assert.equal(yielded.length, bad.offset, 'exactly the bytes before the corrupt chunk');
  assert.ok(yielded.equals(data.subarray(0, bad.offset)));
});

test('read-ahead with a store that reads runs (decision 199): the first chunk alone, then runs of at least half the window, within the same bounds and order', async (t) => {
  const { store: inner, data, result } = await storedObject(t);
  const refs = result.chunks;
  assert.ok(refs.length > 40);
  const alone: string[] = [];
  const runs: string[][] = [];
  const store = {
    get(s: ChunkScope, id: string, codec: ChunkCodec, hint?: number, sequential?: boolean, buffers?: unknown) {
      assert.equal(buffers, undefined, 'the first chunk is never borrowed');
      alone.push(id);
      return inner.get(s, id, codec, hint);
    },
    getMany(s: ChunkScope, requests: ReadonlyArray<{ id: string; codec: ChunkCodec; rawLengthHint?: number }>) {
      runs.push(requests.map((r) => r.id));
      return requests.map((r) => inner.get(s, r.id, r.codec, r.rawLengthHint));
    },
  } as unknown as ChunkStore;
  const depth = 8;
  const maxBytes = 6 * Math.max(...refs.map((r) => r.length));
  const reader = new ChunkReadAhead(refs, store, scope, depth, maxBytes);
  const out: Uint8Array[] = [];
  for (let k = 0; k < refs.length; k++) {
    const next = reader.next();
    assert.ok(reader.inFlight.reads <= depth);
    assert.ok(reader.inFlight.reads <= 1 || reader.inFlight.bytes <= maxBytes, `step ${k}: ${reader.inFlight.bytes} bytes ahead`);
    out.push(await next);
  }
  assert.ok(Buffer.concat(out).equals(data));
  assert.deepEqual(alone, [refs[0]!.id]);
  assert.deepEqual(runs.flat(), refs.slice(1).map((r) => r.id), 'every other chunk in one run, once, in order');
  // Topping up one read at a time would hand the store runs of one; only the last run may be short.
  for (const run of runs.slice(0, -1)) assert.ok(run.length >= depth / 2, `a run of ${run.length}`);
});
