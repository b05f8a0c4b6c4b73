/**
 * Frames (decision 157): consecutive new compressible chunks of one ingest
 * are compressed together, up to {@link FRAME_TARGET_BYTES} of raw bytes, so
 * that the coder sees enough context. A frame's encoded form (its "payload")
 * is self-describing:
 *
 *     payload = codec (1 byte: 0 raw, 1 zstd, 2 bwt) body
 *     raw:  body = the frame's bytes
 *     zstd: body = one zstd frame
 *     bwt:  body = primary index (4 bytes, big-endian) ‖ one zstd frame of the
 *           Burrows–Wheeler transform's last column (bwt.ts)
 *
 * Measured on the issue-12 corpus (log-like + JSON, 100 MiB): 64 KiB chunks
 * alone with zstd 3 store 21.7 MB; 1 MiB zstd-3 frames 21.5 MB (restic 0.14:
 * 21.5 MB); 1 MiB zstd-19 frames 15.3 MB at ~1 MiB/s; 1 MiB BWT frames
 * 14.0 MB at ~8 MiB/s per core. The chunk inside a frame is still verified
 * against its SHA-256 on every read, by the chunk store.
 */
import zlib from 'node:zlib';
import { bwtDecode, bwtEncode } from './bwt.ts';

export type FrameCodec = 'raw' | 'zstd' | 'bwt';
export const FRAME_CODECS: readonly FrameCodec[] = ['raw', 'zstd', 'bwt'];
const CODEC_BYTE: Readonly<Record<FrameCodec, number>> = { raw: 0, zstd: 1, bwt: 2 };
/** A payload starting with this byte is one zstd frame after it. */
export const ZSTD_CODEC_BYTE = CODEC_BYTE.zstd;

/** A frame is closed once its raw bytes reach this (1 MiB: the measured knee of ratio against range-read cost). */
export const FRAME_TARGET_BYTES = 1024 * 1024;

/** zstd level behind the BWT (its output is runs and a skewed alphabet: 9 is ~2 % smaller than 3 and cheap beside the BWT). */
export const FRAME_ZSTD_LEVEL = 9;

/** zstd level of plain zstd frames (the fast codec: zstd's own default). */
export const FRAME_ZSTD_FAST_LEVEL = 3;

/** A frame's payload must save at least this share of the raw bytes, else the frame is stored raw. */
export const FRAME_MIN_SAVING_RATIO = 0.05;

/** Largest decoded frame accepted (a frame is ~1 MiB plus one maximum chunk; this bounds a corrupt header's damage). */
export const MAX_FRAME_RAW_BYTES = 64 * 1024 * 1024;

function zstd(data: Uint8Array, level: number): Buffer {
  return zlib.zstdCompressSync(data, {
    pledgedSrcSize: data.length,
    params: {
      [zlib.constants.ZSTD_c_compressionLevel]: level,
      [zlib.constants.ZSTD_c_contentSizeFlag]: 1,
      [zlib.constants.ZSTD_c_checksumFlag]: 0,
    },
  });
}

/**
 * The payload of one frame, synchronously (run it on a worker: a 1 MiB BWT
 * frame takes ~100 ms of CPU). Falls back to raw when the codec saves less
 * than {@link FRAME_MIN_SAVING_RATIO}.
 */
export function encodeFrameSync(raw: Uint8Array, codec: FrameCodec, level = codec === 'bwt' ? FRAME_ZSTD_LEVEL : FRAME_ZSTD_FAST_LEVEL): Buffer {
  let payload: Buffer | undefined;
  if (codec === 'zstd') {
    const body = zstd(raw, level);
    payload = Buffer.allocUnsafe(1 + body.length);
    payload[0] = CODEC_BYTE.zstd;
    body.copy(payload, 1);
  } else if (codec === 'bwt') {
    const { last, primary } = bwtEncode(raw);
    const body = zstd(last, level);
    payload = Buffer.allocUnsafe(5 + body.length);
    payload[0] = CODEC_BYTE.bwt;
    payload.writeUInt32BE(primary, 1);
    body.copy(payload, 5);
  }
  if (payload && payload.length <= raw.length * (1 - FRAME_MIN_SAVING_RATIO)) return payload;
  const stored = Buffer.allocUnsafe(1 + raw.length);
  stored[0] = CODEC_BYTE.raw;
  stored.set(raw, 1);
  return stored;
}

/** The codec a payload was written with. @throws Error on an unknown codec byte */
export function frameCodecOf(payload: Uint8Array): FrameCodec {
  const codec = FRAME_CODECS[payload[0] ?? 255];
  if (!codec) throw new Error(`unknown frame codec byte ${payload[0]}`);
  return codec;
}

/**
 * Decodes a frame into `out` (decision 207: restores decode dense frames into
 * pooled buffers); returns the bytes written. zstd frames decode in place with
 * `decoder`; the other codecs decode, then copy.
 * @throws Error when the payload is not a valid frame or decodes to more than `out` holds
 */
export function decodeFrameInto(payload: Uint8Array, out: Uint8Array, decoder: { decodeInto(frame: Uint8Array, out: Uint8Array): number }): number {
  if (frameCodecOf(payload) === 'zstd') return decoder.decodeInto(payload.subarray(1), out);
  const decoded = decodeFrameSync(payload);
  if (decoded.byteLength > out.byteLength) throw new Error(`frame decodes to ${decoded.byteLength} bytes, more than the ${out.byteLength} expected`);
  out.set(decoded);
  return decoded.byteLength;
}

/**
 * The raw bytes of a frame.
 * @throws Error when the payload is not a valid frame (the caller reports the chunk as undecodable)
 */
export function decodeFrameSync(payload: Uint8Array): Uint8Array {
  const codec = frameCodecOf(payload);
  const body = payload.subarray(codec === 'bwt' ? 5 : 1);
  if (codec === 'raw') return body;
  const unzstd = (b: Uint8Array) => zlib.zstdDecompressSync(b, { maxOutputLength: MAX_FRAME_RAW_BYTES });
  if (codec === 'zstd') return unzstd(body);
  if (payload.length < 5) throw new Error('bwt frame cut short');
  const primary = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).readUInt32BE(1);
  return bwtDecode(unzstd(body), primary);
}
