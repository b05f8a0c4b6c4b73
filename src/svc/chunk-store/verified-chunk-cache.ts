/**
 * A bounded in-memory cache of chunks that were read and verified, in front
 * of any {@link ChunkStore}. Range reads hit the same chunks again and again
 * (a video seek, a parquet footer); without SHA-NI the SHA-256 check alone
 * costs ~4 ms per MiB on the reference machine, so serving verified bytes
 * from memory is what brings a warm 1 MiB range read under 2 ms.
 *
 * Correctness: an entry holds bytes whose SHA-256 matched the chunk id when
 * they were read, and a chunk id names exactly one byte string, so a hit is
 * as good as a fresh verified read. Damage to the file after that read is
 * caught by the next read that misses the cache (and by restore tests, which
 * bypass it: construct them over the plain store).
 *
 * Eviction is least-recently-used by bytes. Reads marked `sequential` (a
 * whole object streamed start to end: a full restore) are served from the
 * cache when they hit but are not added to it: a 1 GiB restore would
 * otherwise push every range reader's chunks out, and keep 64 MiB of chunk
 * buffers cycling through the old generation (docs/decisions/168).
 */
import type { ChunkCodec } from '../chunking/chunk-codec.ts';
import type { ChunkScope } from './chunk-scope.ts';
import type { ChunkPutResult, ChunkReadRequest, ChunkStore, ChunkWriter, StoredChunkInfo } from './chunk-store.ts';
import type { ReadBuffers } from './read-buffers.ts';

export interface VerifiedChunkCacheOptions {
  /** Upper bound of cached raw bytes (default 64 MiB). 0 disables the cache. */
  maxBytes?: number;
}

export class VerifiedChunkCache implements ChunkStore {
  readonly #inner: ChunkStore;
  readonly #maxBytes: number;
  /** Insertion order is recency order: a hit is deleted and re-inserted. */
  readonly #entries = new Map<string, Uint8Array>();
  #bytes = 0;
  #hits = 0;
  #misses = 0;

  constructor(inner: ChunkStore, options: VerifiedChunkCacheOptions = {}) {
    this.#inner = inner;
    this.#maxBytes = options.maxBytes ?? 64 * 1024 * 1024;
  }

  /** The store under the cache: restore tests read it so that they check what is stored, not what is cached. */
  get storage(): ChunkStore {
    return this.#inner;
  }

  /** Hit and miss counters since construction (for metrics and benchmarks). */
  get counters(): { hits: number; misses: number; bytes: number; entries: number } {
    return { hits: this.#hits, misses: this.#misses, bytes: this.#bytes, entries: this.#entries.size };
  }

  /** Writes bypass the cache (it holds verified reads only). */
  openWriter(): ChunkWriter {
    return this.#inner.openWriter();
  }

  stat(scope: ChunkScope, id: string, codec?: ChunkCodec): Promise<StoredChunkInfo | undefined> {
    return this.#inner.stat(scope, id, codec);
  }

  put(scope: ChunkScope, id: string, codec: ChunkCodec, data: Uint8Array): Promise<ChunkPutResult> {
    return this.#inner.put(scope, id, codec, data);
  }

  async get(scope: ChunkScope, id: string, codec: ChunkCodec, rawLengthHint?: number, sequential = false, buffers?: ReadBuffers): Promise<Uint8Array> {
    // Keyed by scope and id only: every codec decodes to the same bytes.
    const key = `${scope}/${id}`;
    const cached = this.#lookup(key);
    if (cached) return cached;
    // A whole-object read passes once: keeping it would evict what range reads come back to (scan resistance).
    // Only such a read may borrow buffers: a kept chunk must never be memory its reader gives back.
    if (sequential) return this.#inner.get(scope, id, codec, rawLengthHint, true, buffers);
    const bytes = await this.#inner.get(scope, id, codec, rawLengthHint);
    this.#remember(key, bytes);
    return bytes;
  }

  /**
   * A whole-object pass (`sequential`) serves its hits from the cache and
   * reads its misses together from the store below (decision 199), keeping
   * none of them, as `get` does for such a pass. Other reads go one by one
   * through `get`, which keeps what it reads.
   */
  getMany(scope: ChunkScope, requests: readonly ChunkReadRequest[], sequential = false, buffers?: ReadBuffers): Array<Promise<Uint8Array>> {
    const alone = (r: ChunkReadRequest) => this.get(scope, r.id, r.codec, r.rawLengthHint, sequential, buffers);
    if (!sequential || !this.#inner.getMany) return requests.map(alone);
    const out: Array<Promise<Uint8Array>> = new Array(requests.length);
    const missed: number[] = [];
    for (const [i, r] of requests.entries()) {
      const cached = this.#lookup(`${scope}/${r.id}`);
      if (cached) out[i] = Promise.resolve(cached);
      else missed.push(i);
    }
    if (missed.length > 0) {
      const reads = this.#inner.getMany(
        scope,
        missed.map((i) => requests[i]!),
        true,
        buffers,
      );
      for (const [k, i] of missed.entries()) out[i] = reads[k]!;
    }
    return out;
  }

  readStored(scope: ChunkScope, id: string, codec: ChunkCodec): Promise<Uint8Array> {
    return this.#inner.readStored(scope, id, codec);
  }

  async delete(scope: ChunkScope, id: string, codec: ChunkCodec): Promise<boolean> {
    this.#forget(`${scope}/${id}`);
    return this.#inner.delete(scope, id, codec);
  }

  flush(): Promise<void> {
    return this.#inner.flush();
  }

  /** Drops every entry (tests, and operators after repairing a store). */
  clear(): void {
    this.#entries.clear();
    this.#bytes = 0;
  }

  /** A cached chunk, made the most recently used (counted as a hit), or undefined (counted as a miss). */
  #lookup(key: string): Uint8Array | undefined {
    const cached = this.#entries.get(key);
    if (!cached) {
      this.#misses++;
      return undefined;
    }
    this.#hits++;
    this.#entries.delete(key);
    this.#entries.set(key, cached);
    return cached;
  }

  #remember(key: string, read: Uint8Array): void {
    if (read.length > this.#maxBytes / 2) return; // one huge chunk must not flush the whole cache
    // Keep only what is counted: a view into a larger buffer (a small read
    // from Buffer's shared 8 KiB slabs, a slice of a pack read) would pin all
    // of it while the budget saw the view. Exact-size copies cost one memcpy.
    const bytes = read.byteLength === read.buffer.byteLength ? read : new Uint8Array(read);
    this.#forget(key);
    this.#entries.set(key, bytes);
    this.#bytes += bytes.length;
    for (const [oldest, value] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= value.length;
    }
  }

  #forget(key: string): void {
    const existing = this.#entries.get(key);
    if (existing) {
      this.#entries.delete(key);
      this.#bytes -= existing.length;
    }
  }
}
