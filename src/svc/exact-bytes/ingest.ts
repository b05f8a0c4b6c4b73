/**
 * The exact-bytes ingest pipeline: one pass over a byte stream that
 *
 * 1. hashes the whole object (SHA-256, in order);
 * 2. cuts it into content-defined chunks (FastCDC);
 * 3. names every chunk by its SHA-256 and reuses chunks the dedupe scope
 *    already holds;
 * 4. compresses new chunks where it pays (enforce) and stores them
 *    atomically: in frames of ~1 MiB with their neighbours when the store
 *    writes frames (packs, decision 157), else each with zstd on its own;
 * 5. flushes its writer (ChunkStore.openWriter), so that every chunk the
 *    object references — new, or found pending from a concurrent ingest — is
 *    durable before the caller writes a manifest that references them.
 *
 * Steps 3–4 of up to `concurrency` chunks run at once while the main thread
 * keeps chunking; results are assembled in object order. Where the work runs:
 * for an object whose size is known and large (a raw upload, a multipart
 * completion), both hashes and the zstd frames run on an ingest worker
 * (ingest-offload.ts, decision 189), and with the default chunk sizes the
 * cutting too (decision 203); otherwise hashing goes through the hash
 * pool (this thread on a CPU with SHA instructions, decision 154) and zstd
 * runs on this thread (decision 180). File writes run on the libuv thread
 * pool. Memory stays bounded by the chunker's window plus `concurrency`
 * chunks (and, offloaded, the pool's shared slots), whatever the object size.
 *
 * If ingest fails part way, chunks already written stay in the store,
 * unreferenced; they are reused by a retry and otherwise left to garbage
 * collection.
 */
import { SvcError } from '../errors.ts';
import type { EncodeOptions, RawReason } from '../chunking/chunk-codec.ts';
import type { ChunkingDescriptor, ChunkingParams } from '../chunking/chunking-params.ts';
import { describeChunking, validateChunkingParams } from '../chunking/chunking-params.ts';
import { detectCompressedFormat, MAGIC_SNIFF_BYTES } from '../chunking/compressibility.ts';
import { ChunkWindows } from '../chunking/chunk-windows.ts';
import { chunkStream } from '../chunking/stream-chunker.ts';
import type { ChunkScope } from '../chunk-store/chunk-scope.ts';
import type { ChunkStore } from '../chunk-store/chunk-store.ts';
import type { IngestedChunk } from './chunk-ref.ts';
import { CHUNK_ID_PREFIX } from '../chunk-store/chunk-id.ts';
import { HashPool } from '../chunk-store/hash-pool.ts';
import type { OffloadedChunk, OffloadStream } from './ingest-offload.ts';
import { IngestOffloadPool, offloadsIngest, scansOnWorker } from './ingest-offload.ts';
import type { ChunkOutcome, IngestMode, StoreChunkContext } from './store-chunk.ts';
import { storeChunk } from './store-chunk.ts';

export type { IngestMode } from './store-chunk.ts';

export interface IngestOptions {
  store: ChunkStore;
  /** Dedupe scope (see chunkScopeFor). */
  scope: ChunkScope;
  mode: IngestMode;
  chunking?: Partial<ChunkingParams>;
  zstdLevel?: number;
  /** False when policy does not allow compression: new chunks are stored raw. Default true. */
  compression?: boolean;
  /** Chunks processed at once (default 8). */
  concurrency?: number;
  /** Reject objects larger than this with `payload_too_large` (default: no limit). */
  maxBytes?: number;
  /** Absolute offsets where a chunk must end (format-aware adapters, e.g. tensor boundaries); CDC restarts there. */
  boundaries?: readonly number[];
  /** Where the chunker's windows come from (default: the thread's shared pool; tests give a poisoning one). */
  windows?: ChunkWindows;
  /** Called after each chunk is cut with the bytes read so far (progress bars). */
  onProgress?: (bytesRead: number) => void;
  /**
   * The object's size when the caller knows it (a raw upload's Content-Length). Large objects are hashed and
   * compressed on worker threads (ingest-offload.ts, decision 189); unknown sizes stay on this thread.
   */
  sizeHint?: number;
  /** Where to offload (tests give their own pool, or false to keep everything on this thread). Default: by size. */
  offload?: IngestOffloadPool | false;
}

/** Measured effects of one ingest. "would" figures are what enforce mode stores; in enforce they equal the actual ones. */
export interface IngestStats {
  chunk_count: number;
  chunks_reused: number;
  chunks_new: number;
  /** Raw bytes of chunks that were not written because the scope (or the object itself) already held them. */
  bytes_deduplicated: number;
  /** Raw bytes minus stored bytes of new compressed chunks. */
  bytes_saved_by_compression: number;
  /** Bytes enforce mode would have written for this object (equals `bytes_stored` in enforce). */
  would_store_bytes: number;
  /** Already-compressed format detected from the object's first bytes, if any. */
  detected_format: string | null;
  /** New chunks stored raw, by reason. */
  raw_chunks: Partial<Record<RawReason, number>>;
  duration_ms: number;
}

export interface IngestResult {
  /** Hex SHA-256 of the whole object. */
  sha256: string;
  bytes_in: number;
  /** Bytes physically written to the chunk store by this ingest. */
  bytes_stored: number;
  chunks: IngestedChunk[];
  chunking: ChunkingDescriptor;
  mode: IngestMode;
  stats: IngestStats;
}

const DEFAULT_CONCURRENCY = 8;
/**
 * Chunks in flight in an offloaded ingest: about four batches' worth of
 * ~64 KiB chunks, so that the main thread looks up and stores the next
 * batches while the worker cuts, hashes and compresses others (32, two
 * batches, measured slower with batches that fill their slots; decision 201).
 * A slot the worker cut is started whole, so the window may run over by up
 * to one slot's chunks (decision 203).
 */
const OFFLOAD_CONCURRENCY = 64;

/** The chunker windows every ingest of this thread borrows unless given its own (decision 181). */
const SHARED_WINDOWS = new ChunkWindows();

/**
 * Ingests one object.
 *
 * @example
 *   const result = await ingest(fs.createReadStream(file), { store, scope: chunkScopeFor('tenant', 'acme'), mode: 'enforce' });
 *   // result.sha256, result.chunks → the manifest
 * @throws SvcError `payload_too_large` past `maxBytes`; store errors as thrown by the store.
 */
export async function ingest(source: AsyncIterable<Uint8Array>, options: IngestOptions): Promise<IngestResult> {
  const started = performance.now();
  const params = validateChunkingParams(options.chunking);
  const offload = openOffload(options);
  const concurrency = Math.max(1, options.concurrency ?? (offload ? OFFLOAD_CONCURRENCY : DEFAULT_CONCURRENCY));
  const hashes = HashPool.shared();
  // The whole-object hash runs where the chunks' hashes run: on the offload's worker, or through the hash pool.
  const streamHash = offload ? undefined : hashes.openStream();
  const objectDigest = (): Promise<string> => (streamHash ? streamHash.digest() : offload!.digest());
  let objectSha256: Promise<string> | undefined;
  const encode: EncodeOptions = { objectIsCompressed: false };
  if (options.zstdLevel !== undefined) encode.zstdLevel = options.zstdLevel;
  if (options.compression === false) encode.compression = false;
  const writer = options.store.openWriter();
  const windows = options.windows ?? SHARED_WINDOWS;
  const ctx: StoreChunkContext = { store: writer, scope: options.scope, mode: options.mode, encode };

  // The first occurrence of each chunk id in this object: later occurrences
  // wait for it instead of racing it into the store.
  const firstOccurrence = new Map<string, Promise<ChunkOutcome>>();
  const inFlight: Array<{ chunk: Uint8Array; offset: number; length: number; outcome: Promise<ChunkOutcome>; handle?: OffloadedChunk }> = [];
  const chunks: IngestedChunk[] = [];
  const stats = newStats();
  let bytesIn = 0;
  let bytesStored = 0;

  // Framed chunks: their stored lengths are known once their frames are encoded.
  const framed: Array<{ chunk: IngestedChunk; outcome: ChunkOutcome; rawLength: number }> = [];
  const settleOldest = async (): Promise<void> => {
    const next = inFlight.shift()!;
    let outcome: ChunkOutcome;
    try {
      outcome = await next.outcome;
    } finally {
      // Hashed and stored (the writer is done with the bytes once put resolves): its window may be reused.
      windows.release(next.chunk);
    }
    const chunk: IngestedChunk = { id: outcome.id, offset: next.offset, length: next.length, stored_length: outcome.storedLength, codec: outcome.codec, reused: outcome.reused };
    chunks.push(chunk);
    if (outcome.framedLength) framed.push({ chunk, outcome, rawLength: next.length });
    else {
      bytesStored += outcome.bytesWritten;
      recordOutcome(stats, outcome, next.length);
    }
  };

  try {
    // Where the chunks are cut: on the offload's worker when it can (decision 203), else here.
    const groups = offload && scansOnWorker(params, options.boundaries) ? offload.chunked(source, params) : oneByOne(chunkStream(source, params, options.boundaries, windows));
    for await (const group of groups) {
      for (let i = 0; i < group.length; i++) {
        const { chunk, handle: scanned } = group[i]!;
        if (bytesIn === 0) {
          // Magic bytes only exist at the start of the object; the verdict applies to all its chunks.
          const format = detectCompressedFormat(chunk.subarray(0, MAGIC_SNIFF_BYTES));
          stats.detected_format = format ?? null;
          encode.objectIsCompressed = format !== undefined;
        }
        const offset = bytesIn;
        bytesIn += chunk.length;
        if (options.maxBytes !== undefined && bytesIn > options.maxBytes) {
          for (const rest of group.slice(i)) rest.handle?.release();
          throw new SvcError('payload_too_large', `object exceeds the limit of ${options.maxBytes} bytes`, { details: { limit_bytes: options.maxBytes } });
        }
        let outcome: Promise<ChunkOutcome>;
        let handle: OffloadedChunk | undefined = scanned;
        if (handle) outcome = processOffloaded(chunk, handle, ctx, firstOccurrence);
        else if (streamHash) {
          streamHash.update(chunk);
          outcome = processChunk(chunk, ctx, firstOccurrence, hashes);
        } else {
          handle = await offload!.add(chunk);
          outcome = processOffloaded(chunk, handle, ctx, firstOccurrence);
        }
        // A later chunk may fail while an earlier one is awaited; its error is
        // reported when its turn comes, not as an unhandled rejection.
        outcome.catch(() => undefined);
        inFlight.push({ chunk, offset, length: chunk.length, outcome, handle });
        options.onProgress?.(bytesIn);
      }
      // A group (a slot the worker cut) is started whole before anything is awaited: its encode step waits for
      // every chunk of it to be decided.
      while (inFlight.length >= concurrency) {
        // The oldest chunk's digest may be waiting in the open batch: send it then, and only then, so that a
        // batch otherwise fills its slot (sending on every chunk once the window was full made every batch
        // one chunk — one message each way per chunk).
        if (inFlight[0]!.handle?.sent === false) offload!.send();
        await settleOldest();
      }
    }
    offload?.send();
    while (inFlight.length > 0) await settleOldest();
    // Asked for now, not after the flush: an offloaded stream ends with its digest, whatever happens next.
    objectSha256 = objectDigest();
    objectSha256.catch(() => undefined);
  } catch (err) {
    offload?.abort(err instanceof Error ? err : new Error(String(err)));
    // Let in-flight writes finish (their errors are secondary) before reporting,
    // and close the worker's stream so it does not linger.
    await Promise.allSettled([...inFlight.map((f) => f.outcome), objectSha256 ?? objectDigest()]);
    for (const f of inFlight) windows.release(f.chunk);
    // Write what was buffered for this ingest instead of holding it in memory
    // (a pack store keeps unflushed chunks in memory); unreferenced, it is garbage.
    await writer.flush().catch(() => undefined);
    throw err;
  }
  await writer.flush();
  for (const f of framed) {
    const share = await f.outcome.framedLength!;
    f.chunk.stored_length = share;
    const outcome: ChunkOutcome = { ...f.outcome, storedLength: share, bytesWritten: f.outcome.reused ? 0 : share, enforceWouldWrite: f.outcome.reused ? 0 : share };
    bytesStored += outcome.bytesWritten;
    recordOutcome(stats, outcome, f.rawLength);
  }

  stats.duration_ms = performance.now() - started;
  if (options.mode === 'enforce') stats.would_store_bytes = bytesStored;
  return {
    sha256: await objectSha256,
    bytes_in: bytesIn,
    bytes_stored: bytesStored,
    chunks,
    chunking: describeChunking(params),
    mode: options.mode,
    stats,
  };
}

/** Chunks cut on this thread, as groups of one (the shape of {@link OffloadStream.chunked}'s groups). */
async function* oneByOne(chunks: AsyncIterable<Uint8Array>): AsyncGenerator<Array<{ chunk: Uint8Array; handle?: OffloadedChunk }>> {
  for await (const chunk of chunks) yield [{ chunk }];
}

/** The offload stream for this ingest, or undefined when it runs on this thread. */
function openOffload(options: IngestOptions): OffloadStream | undefined {
  if (options.mode !== 'enforce' || options.offload === false) return undefined;
  if (options.offload) return options.offload.openStream();
  return offloadsIngest(options.sizeHint) ? IngestOffloadPool.shared().openStream() : undefined;
}

/**
 * {@link processChunk} for an offloaded ingest: the digest comes from the worker, and so does the zstd frame.
 * The handle is released once the chunk is stored (the writer is done with the frame's bytes then).
 */
async function processOffloaded(raw: Uint8Array, handle: OffloadedChunk, ctx: StoreChunkContext, firstOccurrence: Map<string, Promise<ChunkOutcome>>): Promise<ChunkOutcome> {
  try {
    const id = CHUNK_ID_PREFIX + (await handle.digest);
    const earlier = firstOccurrence.get(id);
    if (earlier) {
      handle.skip();
      const first = await earlier;
      return { id, codec: first.codec, storedLength: first.storedLength, bytesWritten: 0, reused: true, enforceWouldWrite: 0 };
    }
    const outcome = storeChunk(raw, id, ctx, handle);
    firstOccurrence.set(id, outcome);
    return await outcome;
  } finally {
    // A chunk that failed before its decision must not hold its batch's encode step back.
    handle.skip();
    handle.release();
  }
}

/** Hashes a chunk, then stores it unless an earlier chunk of the same object has the same id. */
async function processChunk(raw: Uint8Array, ctx: StoreChunkContext, firstOccurrence: Map<string, Promise<ChunkOutcome>>, hashes: HashPool): Promise<ChunkOutcome> {
  const id = CHUNK_ID_PREFIX + (await hashes.digest(raw));
  const earlier = firstOccurrence.get(id);
  if (earlier) {
    const first = await earlier;
    return { id, codec: first.codec, storedLength: first.storedLength, bytesWritten: 0, reused: true, enforceWouldWrite: 0 };
  }
  const outcome = storeChunk(raw, id, ctx);
  firstOccurrence.set(id, outcome);
  return outcome;
}

function newStats(): IngestStats {
  return {
    chunk_count: 0,
    chunks_reused: 0,
    chunks_new: 0,
    bytes_deduplicated: 0,
    bytes_saved_by_compression: 0,
    would_store_bytes: 0,
    detected_format: null,
    raw_chunks: {},
    duration_ms: 0,
  };
}

function recordOutcome(stats: IngestStats, outcome: ChunkOutcome, rawLength: number): void {
  stats.chunk_count++;
  stats.would_store_bytes += outcome.enforceWouldWrite;
  if (outcome.reused) {
    stats.chunks_reused++;
    stats.bytes_deduplicated += rawLength;
    return;
  }
  stats.chunks_new++;
  if (outcome.codec === 'zstd') stats.bytes_saved_by_compression += rawLength - outcome.storedLength;
  if (outcome.rawReason) stats.raw_chunks[outcome.rawReason] = (stats.raw_chunks[outcome.rawReason] ?? 0) + 1;
}
