/**
 * Per-chunk encoding: zstd where it pays, raw otherwise. Compression runs on
 * the calling thread with one reused zstd context per level (zstd-native.ts):
 * measured a third of the CPU of `zlib.zstdCompress` on the thread pool, which
 * built a stream, a native context and its tables for every chunk (decision 180).
 *
 * A compressed copy is kept only when it saves at least
 * {@link MIN_SAVING_RATIO} of the raw size: below that, the saving does not
 * pay for a decompression on every read (docs/decisions/022-compression-policy.md).
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { looksIncompressible } from './compressibility.ts';
import { FrameTooLargeError, ZstdFrameDecoder, ZstdFrameEncoder } from './zstd-native.ts';

export type ChunkCodec = 'raw' | 'zstd';

export const CHUNK_CODECS: readonly ChunkCodec[] = ['raw', 'zstd'];

/** A compressed chunk must be at most `(1 - MIN_SAVING_RATIO)` of the raw size. */
export const MIN_SAVING_RATIO = 0.05;

/** zstd level 3 (zstd's own default): measured in object-exact-v1 against 1 and 6. */
export const DEFAULT_ZSTD_LEVEL = 3;

const zstdDecompress = promisify(zlib.zstdDecompress);

/** Chunks up to this size decode on the calling thread (the default maximum chunk is 256 KiB). */
const MAX_INLINE_DECODE_BYTES = 4 * 1024 * 1024;
/** Decodes are synchronous: one context serves every call of this thread. */
const frameDecoder = new ZstdFrameDecoder();

/** Encoders by level: contexts are per thread and each is used by one synchronous call at a time. */
const encoders = new Map<number, ZstdFrameEncoder>();
function encoderFor(level: number): ZstdFrameEncoder {
  let encoder = encoders.get(level);
  if (!encoder) {
    encoder = new ZstdFrameEncoder(level);
    encoders.set(level, encoder);
  }
  return encoder;
}

/** Why a chunk ended up raw; counted in ingest statistics. */
export type RawReason = 'object_compressed_format' | 'high_entropy' | 'saving_below_threshold' | 'not_attempted';

export interface EncodedChunk {
  codec: ChunkCodec;
  /** What is written to the store (the raw bytes themselves when codec is raw). */
  data: Uint8Array;
  /** Set when the codec is raw. */
  rawReason?: RawReason;
  /** Compressed size when compression was attempted (whether kept or not). */
  compressedLength?: number;
}

export interface EncodeOptions {
  /** False when policy did not allow compression (the plan has no `zstd` action). Default true. */
  compression?: boolean;
  /** Skip compression: the object's format is already compressed or encrypted. */
  objectIsCompressed?: boolean;
  zstdLevel?: number;
}

/**
 * Who codes a chunk's zstd frame when {@link encodeChunk} decides to try:
 * by default this thread's reused context; an ingest offloaded to a worker
 * (exact-bytes/ingest-offload.ts, decision 189) passes its own, which must
 * give the same bytes. `skip` is called instead when no frame is wanted, so
 * that the compressor learns of every decision.
 */
export interface ChunkCompressor {
  compress(raw: Uint8Array, level: number): Promise<Uint8Array>;
  skip(): void;
}

/**
 * One zstd frame of `raw` coded on the calling thread with its reused context (decision 180): the frame carries
 * the content size (decoders allocate once) and no checksum (the chunk's SHA-256 is checked on every read).
 */
export function compressZstdInline(raw: Uint8Array, level: number): Uint8Array {
  return encoderFor(level).encode(raw);
}

/**
 * Chooses the stored form of one chunk.
 * @example const { codec, data } = await encodeChunk(chunk, { zstdLevel: 3 });
 */
export async function encodeChunk(raw: Uint8Array, options: EncodeOptions = {}, compressor?: ChunkCompressor): Promise<EncodedChunk> {
  const rawBecause = (rawReason: RawReason): EncodedChunk => {
    compressor?.skip();
    return { codec: 'raw', data: raw, rawReason };
  };
  if (options.compression === false) return rawBecause('not_attempted');
  if (options.objectIsCompressed) return rawBecause('object_compressed_format');
  if (looksIncompressible(raw)) return rawBecause('high_entropy');
  const level = options.zstdLevel ?? DEFAULT_ZSTD_LEVEL;
  const compressed = compressor ? await compressor.compress(raw, level) : compressZstdInline(raw, level);
  if (compressed.length > raw.length * (1 - MIN_SAVING_RATIO)) {
    return { codec: 'raw', data: raw, rawReason: 'saving_below_threshold', compressedLength: compressed.length };
  }
  return { codec: 'zstd', data: compressed, compressedLength: compressed.length };
}

/**
 * The raw bytes of a stored chunk. `rawLengthHint` (the manifest's length)
 * only sizes the output buffer; correctness never depends on it.
 * @throws Error when the stored bytes are not a valid frame of the codec (the
 *   caller reports it as a corrupt chunk).
 */
/**
 * Decodes a zstd chunk into `out` (a whole-object restore's borrowed buffer), synchronously with this thread's
 * reused context (decision 177); returns the bytes written.
 * @throws Error when the frame does not decode or decodes to more than `out` holds
 */
export function decodeZstdChunkInto(stored: Uint8Array, out: Uint8Array): number {
  return frameDecoder.decodeInto(stored, out);
}

export async function decodeChunk(codec: ChunkCodec, stored: Uint8Array, rawLengthHint?: number): Promise<Uint8Array> {
  if (codec === 'raw') return stored;
  if (rawLengthHint !== undefined && rawLengthHint > 0 && rawLengthHint <= MAX_INLINE_DECODE_BYTES) {
    // On the calling thread with the reused context, into a buffer of the length the manifest gives (decision 182):
    // no stream, no context and no thread hand-off per chunk.
    const out = Buffer.allocUnsafe(rawLengthHint);
    try {
      return out.subarray(0, frameDecoder.decodeInto(stored, out));
    } catch (err) {
      // Longer than the manifest says: decoded in full below, and the caller's length and SHA-256 checks decide.
      if (!(err instanceof FrameTooLargeError)) throw err;
    }
  }
  // One output buffer of the right size instead of growing 16 KiB at a time.
  const chunkSize = Math.min(Math.max(rawLengthHint ?? 64 * 1024, 1024), 64 * 1024 * 1024);
  return zstdDecompress(stored, { chunkSize });
}
