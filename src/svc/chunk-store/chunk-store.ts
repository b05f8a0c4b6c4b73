/**
 * The content-addressed chunk store contract. A chunk is addressed by
 * `(scope, id, codec)`: the same raw chunk may exist both raw and compressed
 * (observe mode stores raw copies only; enforce reuses whichever form exists),
 * and every form decodes to the bytes named by the id.
 *
 * Implementations: {@link FsChunkStore} (filesystem) and {@link S3ChunkStore}
 * (S3-compatible object storage), chosen by `createChunkStore`; the contract
 * suite `test/chunk-store/chunk-store.contract.test.ts` runs against both.
 * The contract is what the rehydration and ingest paths rely on:
 *
 * - `put` is atomic: a reader sees either no chunk or the whole chunk;
 * - `put` of an existing key does not change it and reports `created: false`;
 * - `get` returns the decoded bytes only after checking their SHA-256 against
 *   the id, and fails with `rehydration_failed` otherwise;
 * - after `flush()` resolves, every earlier `put` survives a crash;
 * - a writer from `openWriter()` (one per ingest) sees the same chunks; its
 *   `flush()` makes durable every chunk it put or was told exists, and fails
 *   only when one of those could not be made durable.
 */
import type { ChunkCodec } from '../chunking/chunk-codec.ts';
import type { ChunkScope } from './chunk-scope.ts';
import type { ReadBuffers } from './read-buffers.ts';

export interface StoredChunkInfo {
  codec: ChunkCodec;
  /** Bytes the stored form occupies (the file size, for the filesystem store). */
  storedLength: number;
}

export interface ChunkPutResult {
  /** False when the key already existed (deduplicated, nothing written). */
  created: boolean;
}

/** Reason a read failed; carried in `SvcError.details.reason`. */
export type ChunkReadFailure = 'missing' | 'corrupt' | 'undecodable';

export interface FramedPutResult extends ChunkPutResult {
  /** The chunk's share of its frame's compressed bytes, once the frame is encoded (never rejects). */
  storedLength: Promise<number>;
}

/** The write side of one ingest (see {@link ChunkStore.openWriter}). */
export interface ChunkWriter {
  stat(scope: ChunkScope, id: string, codec?: ChunkCodec): Promise<StoredChunkInfo | undefined>;
  /**
   * Like {@link ChunkStore.put}. The writer is done with `data` (and
   * `putFramed`'s `raw`) when the call resolves: it has written them or
   * copied them (the pack store, into buffers lent until the pack is
   * written). Ingest relies on this to reuse its chunker windows (decision 181).
   */
  put(scope: ChunkScope, id: string, codec: ChunkCodec, data: Uint8Array): Promise<ChunkPutResult>;
  /**
   * Stores a compressible chunk's raw bytes in a frame with the chunks put
   * around it (decision 157), as its `zstd` form; only stores that write
   * frames (the pack store) have it. Durable at `flush()`, like `put`.
   */
  putFramed?(scope: ChunkScope, id: string, raw: Uint8Array): Promise<FramedPutResult>;
  /** Makes durable every chunk this writer put or found by `stat`; rejects when one of them could not be. */
  flush(): Promise<void>;
}

/** One chunk of a {@link ChunkStore.getMany} batch: the arguments {@link ChunkStore.get} takes for it. */
export interface ChunkReadRequest {
  id: string;
  codec: ChunkCodec;
  /** The manifest's raw length (not trusted; lets a decoder allocate once). */
  rawLengthHint?: number;
}

export interface ChunkStore {
  /**
   * A writer for one ingest. Stores that write each chunk on its own return
   * themselves; the pack store groups the writer's new chunks into packs and
   * ties its flush to exactly the packs it depends on.
   */
  openWriter(): ChunkWriter;
  /**
   * The stored form of a chunk, or undefined. When both forms exist the
   * compressed one is reported (it is the one enforce mode references).
   * `codec` restricts the answer to one form.
   */
  stat(scope: ChunkScope, id: string, codec?: ChunkCodec): Promise<StoredChunkInfo | undefined>;
  /** Stores one encoded chunk atomically. The caller vouches that `data` decodes to the bytes named by `id`. */
  put(scope: ChunkScope, id: string, codec: ChunkCodec, data: Uint8Array): Promise<ChunkPutResult>;
  /**
   * The raw bytes of a chunk, verified against its id. `rawLengthHint` (from
   * the manifest) lets the decoder allocate once; it is not trusted.
   * `sequential`: the read is part of reading a whole object from start to
   * end, once — a cache in front of the store serves it if it can but does
   * not keep it (a full restore would otherwise evict the chunks that range
   * reads come back to, and churn the collector with its buffers).
   * `buffers`: the caller gives the returned bytes back there when it is done
   * with them (read-buffers.ts), so a store may read into borrowed memory;
   * a store that does not, and a cache that keeps what it returns, ignore it.
   * @throws SvcError `rehydration_failed` with `details.chunk_id` and `details.reason`
   */
  get(scope: ChunkScope, id: string, codec: ChunkCodec, rawLengthHint?: number, sequential?: boolean, buffers?: ReadBuffers): Promise<Uint8Array>;
  /**
   * Optional: several chunks at once, as {@link get} would read each of them
   * (same verification, same failures), one promise per request in order;
   * each settles on its own, so a damaged chunk fails alone and names itself.
   * What a store gains from the batch is I/O: the pack store looks the
   * chunks up in one query and reads neighbours in a pack with one read
   * (decision 199). A restore's read-ahead calls it for runs of chunks.
   */
  getMany?(scope: ChunkScope, requests: readonly ChunkReadRequest[], sequential?: boolean, buffers?: ReadBuffers): Array<Promise<Uint8Array>>;
  /** The stored (encoded) bytes as they are, unverified: for exports, which carry chunks in stored form. */
  readStored(scope: ChunkScope, id: string, codec: ChunkCodec): Promise<Uint8Array>;
  /** Removes one stored form; true when it existed. Used by garbage collection only. */
  delete(scope: ChunkScope, id: string, codec: ChunkCodec): Promise<boolean>;
  /** Makes every completed `put` durable (directory entries included). */
  flush(): Promise<void>;
}
