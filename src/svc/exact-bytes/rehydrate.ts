/**
 * Rehydration: the bytes of an object (or of a byte range of it) rebuilt from
 * its chunk list, streamed, and verified while streaming:
 *
 * - every chunk is checked against its id by the store before a byte of it is
 *   emitted (so a range is verified by its chunk hashes);
 * - a whole object is bound to the manifest one of two ways: its chunk list
 *   against the list digest ingest recorded (checked before any byte is
 *   read, so each byte is hashed once: decision 178), or, for a manifest
 *   without one, its bytes against the manifest's SHA-256, where a mismatch
 *   ends the stream with an error instead of a clean end;
 * - a range reads only the chunks it overlaps (binary search on offsets).
 *
 * The first chunk is read before {@link openRehydration} resolves, so the
 * common failures (missing or corrupt chunk at the start, unsatisfiable range)
 * surface as a thrown `SvcError` before a response is committed. A failure
 * later in the stream errors the stream; HTTP adapters then abort the
 * response, which clients see as a truncated body.
 *
 * The next chunks are read ahead so that file reads, decompression and
 * hashing of several chunks overlap on the thread pool: up to 16 reads in
 * flight and at most 8 MiB of chunk bytes (manifest lengths) held ahead of
 * the consumer, whichever bound comes first (decision 155). Reads complete in
 * any order but are consumed in chunk order; a failed read ahead is reported
 * (with its chunk id) only when the consumer reaches it, after every chunk
 * before it was yielded, and nothing after it is.
 */
import { SvcError } from '../errors.ts';
import type { ChunkScope } from '../chunk-store/chunk-scope.ts';
import type { ChunkStore } from '../chunk-store/chunk-store.ts';
import type { ReadBuffers } from '../chunk-store/read-buffers.ts';
import { HashPool } from '../chunk-store/hash-pool.ts';
import type { ByteRangeRequest, ResolvedRange } from './byte-range.ts';
import { rangeLength, resolveRange } from './byte-range.ts';
import type { ChunkRef } from './chunk-ref.ts';
import { chunkListSha256 } from './chunk-list-digest.ts';

export interface RehydrateOptions {
  store: ChunkStore;
  scope: ChunkScope;
  /** Omit for the whole object. */
  range?: ByteRangeRequest;
  /** The manifest's SHA-256; checked when the whole object is read and no intact list digest vouches for the chunks. */
  expectedSha256?: string;
  /**
   * The chunk list digest ingest recorded (chunk-list-digest.ts). When the whole object is read and `chunks` still
   * hash to it, the bytes are not hashed again as a whole; when they do not, the read fails before any chunk is read.
   */
  expectedChunkListSha256?: string;
  /** Chunk reads in flight ahead of the consumer (default 16). */
  prefetch?: number;
  /** Chunk bytes (manifest lengths) in flight ahead of the consumer (default 8 MiB; one chunk is always allowed). */
  prefetchBytes?: number;
  /**
   * Chunk reads borrow their buffers from here and give each back when the
   * consumer asks for the next piece: the consumer must be done with a piece
   * (written out, not kept) before it asks for the next one — except the
   * first piece, which is never borrowed. Whole objects and ranges alike
   * (decision 195: a range read that allocated a buffer per chunk, and one
   * more per compressed chunk, started a full collection every few reads). A
   * cache in front of the store keeps its chunks in memory of its own and
   * lends only what it does not keep (verified-chunk-cache.ts).
   */
  borrow?: ReadBuffers;
}

export interface Rehydration {
  /** Size of the whole object. */
  size: number;
  /** The satisfied range, or null for the whole object. */
  range: ResolvedRange | null;
  /** Bytes the stream will yield. */
  contentLength: number;
  /** The bytes, in order. Iterate once. */
  stream: AsyncIterable<Uint8Array>;
  /** True when each piece of `stream` is valid only until the next one is requested (`borrow`); absent: false. */
  borrowed?: boolean;
}

const DEFAULT_PREFETCH = 16;
const DEFAULT_PREFETCH_BYTES = 8 * 1024 * 1024;

function inconsistent(message: string, details: Record<string, unknown>): SvcError {
  return new SvcError('rehydration_failed', message, { details: { reason: 'manifest_inconsistent', ...details } });
}

/** Total size of an object described by `chunks`, checking that they tile it without gaps or overlaps. */
export function objectSizeOf(chunks: readonly ChunkRef[]): number {
  let expectedOffset = 0;
  for (const chunk of chunks) {
    if (chunk.offset !== expectedOffset || !(chunk.length > 0)) {
      throw inconsistent(`chunk list is not contiguous at chunk ${chunk.id}`, { chunk_id: chunk.id, offset: chunk.offset });
    }
    expectedOffset += chunk.length;
  }
  return expectedOffset;
}

/** Index of the chunk that holds byte `position` (chunks are contiguous and sorted). */
function chunkIndexAt(chunks: readonly ChunkRef[], position: number): number {
  let low = 0;
  let high = chunks.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >>> 1;
    if (chunks[mid]!.offset <= position) low = mid;
    else high = mid - 1;
  }
  return low;
}

/**
 * Opens a verified byte stream of an object or of a range of it.
 *
 * @example
 *   const r = await openRehydration(manifest.chunks, { store, scope, range: { start: 0, end: 1023 } });
 *   for await (const piece of r.stream) res.write(piece);
 * @throws SvcError `rehydration_failed` (details: chunk_id, reason), `range_not_satisfiable`, `invalid_request`
 */
export async function openRehydration(chunks: readonly ChunkRef[], options: RehydrateOptions): Promise<Rehydration> {
  const size = objectSizeOf(chunks);
  const range = options.range === undefined ? null : resolveRange(options.range, size);
  const first = range ? chunkIndexAt(chunks, range.start) : 0;
  const last = range ? chunkIndexAt(chunks, range.end) : chunks.length - 1;
  const wanted = chunks.slice(first, last + 1);
  const whole = range === null || rangeLength(range) === size;
  let verifyWhole = options.expectedSha256 !== undefined && whole;
  if (whole && options.expectedChunkListSha256 !== undefined) {
    const actual = chunkListSha256(chunks);
    if (actual !== options.expectedChunkListSha256) {
      throw new SvcError('rehydration_failed', 'the chunk list does not match the digest recorded when the object was written', {
        details: { reason: 'chunk_list_mismatch', expected_chunk_list_sha256: options.expectedChunkListSha256, actual_chunk_list_sha256: actual },
      });
    }
    // Each chunk is verified against its id as it is read, and the ids are the ones ingest hashed into sha256.
    verifyWhole = false;
  }
  // Every chunk of a multi-chunk object, start to end: a pass a cache in front of the store should not keep
  // (decision 168). A one-chunk object is kept: small objects are the ones read whole again and again.
  const sequential = first === 0 && last === chunks.length - 1 && chunks.length > 1;
  const borrow = options.borrow;
  const reader = new ChunkReadAhead(wanted, options.store, options.scope, Math.max(1, options.prefetch ?? DEFAULT_PREFETCH), Math.max(1, options.prefetchBytes ?? DEFAULT_PREFETCH_BYTES), sequential, borrow);

  // Fail before the caller commits to a response if the first chunk is bad.
  const firstBytes = wanted.length > 0 ? await reader.next() : undefined;

  async function* stream(): AsyncGenerator<Uint8Array> {
    // Whole-object hashing runs on a worker, alongside the chunk reads.
    const wholeHash = verifyWhole ? HashPool.shared().openStream() : undefined;
    let digested = false;
    // The piece the consumer holds: given back when it asks for the next one (or stops).
    let lent: Uint8Array | undefined;
    try {
      for (let k = 0; k < wanted.length; k++) {
        const ref = wanted[k]!;
        if (lent) borrow!.giveBack(lent);
        lent = undefined;
        const bytes = k === 0 ? firstBytes! : await reader.next();
        if (borrow) lent = bytes;
        if (bytes.length !== ref.length) throw inconsistent(`chunk ${ref.id} has ${bytes.length} bytes, the manifest says ${ref.length}`, { chunk_id: ref.id });
        let piece = bytes;
        if (range) {
          const from = Math.max(range.start - ref.offset, 0);
          const to = Math.min(range.end + 1 - ref.offset, ref.length);
          piece = bytes.subarray(from, to);
        }
        wholeHash?.update(piece);
        // The last piece is released only after the whole object verified:
        // with Content-Length, a client that received every byte would take
        // the body as complete even if the stream failed afterwards.
        if (wholeHash && k === wanted.length - 1) {
          digested = true;
          const actual = await wholeHash.digest();
          if (actual !== options.expectedSha256) {
            throw new SvcError('rehydration_failed', 'rehydrated object does not match the manifest sha256', {
              details: { reason: 'object_digest_mismatch', expected_sha256: options.expectedSha256, actual_sha256: actual },
            });
          }
        }
        yield piece;
      }
      if (wholeHash && !digested) {
        // An empty object: nothing was streamed, the digest is still checked.
        digested = true;
        const actual = await wholeHash.digest();
        if (actual !== options.expectedSha256) {
          throw new SvcError('rehydration_failed', 'rehydrated object does not match the manifest sha256', {
            details: { reason: 'object_digest_mismatch', expected_sha256: options.expectedSha256, actual_sha256: actual },
          });
        }
      }
    } finally {
      if (lent) borrow!.giveBack(lent);
      reader.abandon();
      // A stream abandoned early still closes its worker-side hash.
      if (wholeHash && !digested) wholeHash.digest().catch(() => undefined);
    }
  }

  return { size, range, contentLength: range ? rangeLength(range) : size, stream: stream(), borrowed: borrow !== undefined };
}

/**
 * Reads chunks in order, keeping up to `depth` reads and `maxBytes` chunk
 * bytes in flight ahead of the consumer (the head read always starts, so a
 * chunk larger than `maxBytes` is still read, alone).
 */
export class ChunkReadAhead {
  readonly #refs: readonly ChunkRef[];
  readonly #store: Pick<ChunkStore, 'get' | 'getMany'>;
  readonly #scope: ChunkScope;
  readonly #depth: number;
  readonly #maxBytes: number;
  readonly #sequential: boolean;
  readonly #borrow: ReadBuffers | undefined;
  readonly #pending: Array<{ read: Promise<Uint8Array>; bytes: number }> = [];
  #pendingBytes = 0;
  #nextToStart = 0;

  /** `sequential`: the refs are a whole object read once (passed on to the store: caches do not keep the chunks). */
  constructor(refs: readonly ChunkRef[], store: Pick<ChunkStore, 'get' | 'getMany'>, scope: ChunkScope, depth: number, maxBytes = Number.POSITIVE_INFINITY, sequential = false, borrow?: ReadBuffers) {
    this.#refs = refs;
    this.#store = store;
    this.#scope = scope;
    this.#depth = depth;
    this.#maxBytes = maxBytes;
    this.#sequential = sequential;
    this.#borrow = borrow;
  }

  /** Reads started and not yet handed to the consumer, and their bytes (tests, bounds). */
  get inFlight(): { reads: number; bytes: number } {
    return { reads: this.#pending.length, bytes: this.#pendingBytes };
  }

  next(): Promise<Uint8Array> {
    this.#fill();
    const head = this.#pending.shift();
    if (!head) return Promise.reject(new Error('read past the last chunk'));
    this.#pendingBytes -= head.bytes;
    this.#fill();
    return head.read;
  }

  /** Stops reading ahead (the consumer stopped early or failed). */
  abandon(): void {
    this.#nextToStart = this.#refs.length;
    this.#pending.length = 0;
    this.#pendingBytes = 0;
  }

  #fill(): void {
    const many = this.#store.getMany !== undefined;
    if (!many || this.#nextToStart === 0) {
      // Chunk by chunk; with a store that reads runs, only the first chunk goes this way.
      while (this.#nextToStart < this.#refs.length && this.#fits(0)) {
        const ref = this.#refs[this.#nextToStart++]!;
        // The first chunk is never borrowed: a consumer may hold it while it reads the second, to find a
        // failure there before it commits to a response (byte-response.ts).
        this.#track(this.#store.get(this.#scope, ref.id, ref.codec, ref.length, this.#sequential, this.#nextToStart === 1 ? undefined : this.#borrow), ref);
        if (many) break;
      }
      if (!many) return;
    }
    // Runs (decision 199): once half the window is free, everything that fits starts in one call, so the store
    // can look the chunks up together and read neighbours in a pack with one read. Topping up one chunk at a
    // time would hand it runs of one.
    if (this.#pending.length > 0 && this.#depth - this.#pending.length < Math.ceil(this.#depth / 2)) return;
    const run: ChunkRef[] = [];
    let runBytes = 0;
    while (this.#nextToStart + run.length < this.#refs.length && this.#fits(run.length, runBytes, this.#refs[this.#nextToStart + run.length]!)) {
      const ref = this.#refs[this.#nextToStart + run.length]!;
      run.push(ref);
      runBytes += ref.length;
    }
    if (run.length === 0) return;
    this.#nextToStart += run.length;
    const reads = this.#store.getMany!(
      this.#scope,
      run.map((ref) => ({ id: ref.id, codec: ref.codec, rawLengthHint: ref.length })),
      this.#sequential,
      this.#borrow,
    );
    for (const [k, ref] of run.entries()) this.#track(reads[k]!, ref);
  }

  /** Whether one more read (`ref`, or the next one) may start, `extra` reads and `extraBytes` beyond those pending. */
  #fits(extra: number, extraBytes = 0, ref = this.#refs[this.#nextToStart + extra]): boolean {
    if (!ref || this.#pending.length + extra >= this.#depth) return false;
    // The head read always starts, so a chunk larger than the byte bound is still read, alone.
    return this.#pending.length + extra === 0 || this.#pendingBytes + extraBytes + ref.length <= this.#maxBytes;
  }

  #track(read: Promise<Uint8Array>, ref: ChunkRef): void {
    // Reads ahead may fail before anyone awaits them; the failure is
    // reported when the consumer reaches that chunk, not as an unhandled rejection.
    read.catch(() => undefined);
    this.#pending.push({ read, bytes: ref.length });
    this.#pendingBytes += ref.length;
  }
}
