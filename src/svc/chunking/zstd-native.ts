/**
 * zstd frames coded one at a time into buffers the caller gives, each with
 * one native context kept across calls.
 *
 * Why not `zlib.zstdCompress` / `zlib.zstdDecompress` per chunk: each call
 * builds a stream object, a native context (whose tables a compressor must
 * allocate and clear) and fresh output buffers, and on the async path hands
 * the work to the thread pool and back.
 * - Decoding: the output buffers are external memory to V8, and their growth
 *   starts full collections of the server's whole heap (decision 177).
 * - Encoding 1,600 64 KiB log chunks at level 3: 1.6–2.0 s of CPU through
 *   `zstdCompress`, 0.9–1.0 s through `zstdCompressSync`, 0.5–0.6 s with one
 *   reused context, byte-identical frames (decision 180).
 *
 * Node's public zlib API has no "code into this buffer" call, so this uses
 * the `_handle.writeSync(flush, in, inOff, inLen, out, outOff, outLen)`
 * method that `zlib.zstdCompressSync` / `zstdDecompressSync` are built on
 * (lib/zlib.js processChunkSync). It is not documented. Where it is missing,
 * every call falls back to the public sync API plus a copy, which gives the
 * same bytes; the `native` getters say which path runs.
 *
 * Every decoded frame starts on a reset context, so a damaged frame cannot
 * leak state into the next one; an encoder's context is not reset (that
 * would drop its level) but dropped whenever a frame may not have ended. A
 * context that reported an error is dropped and a new one is made. Written lengths are returned, never trusted: decoded chunks
 * are verified against their SHA-256 by the callers.
 */
import zlib from 'node:zlib';

interface NativeHandle {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
  reset(): void;
}

interface Context {
  stream: zlib.ZstdCompress | zlib.ZstdDecompress;
  handle: NativeHandle;
  /** [available output after, available input after], written by writeSync. */
  state: Uint32Array;
}

/** One native context, made on first use and again after an error; undefined where the binding is missing. */
class NativeContext {
  readonly #create: () => zlib.ZstdCompress | zlib.ZstdDecompress;
  #context: Context | undefined;
  #available: boolean | undefined;

  constructor(create: () => zlib.ZstdCompress | zlib.ZstdDecompress, available?: boolean) {
    this.#create = create;
    this.#available = available;
  }

  get available(): boolean {
    if (this.#available === undefined) this.#available = this.#open() !== undefined;
    return this.#available;
  }

  /**
   * Codes all of `input` as one frame into `out`, on a context that starts a frame.
   *
   * - `reset` (decoders): the context is reset first, so a damaged frame cannot leak state into the next one.
   * - `continue` (encoders): no reset. The binding's `reset()` makes a new zstd context *without* the
   *   parameters the stream was created with, so an encoder made for level 9 coded every frame at zstd's default
   *   level 3 (found while working on decision 189). A frame coded with `ZSTD_e_end` and room to spare has ended
   *   and the context starts the next one with its parameters; one that filled `out` may not have ended, and
   *   its context is dropped (the next frame gets a fresh one).
   * @returns bytes written to `out`, and input bytes left unconsumed (output did not fit)
   * @throws Error when the binding reports an error (the context is dropped)
   */
  frame(input: Uint8Array, out: Uint8Array, start: 'reset' | 'continue'): { written: number; inputLeft: number } {
    const context = this.#open()!;
    if (start === 'reset') context.handle.reset();
    context.handle.writeSync(zlib.constants.ZSTD_e_end, input, 0, input.byteLength, out, 0, out.byteLength);
    // The binding reports an error by destroying the stream (which closes the native handle) inside writeSync;
    // its 'error' event comes later. A destroyed stream's handle must never be written again: that aborts the process.
    if (context.stream.destroyed) {
      this.#context = undefined;
      throw context.stream.errored ?? new Error('zstd frame could not be coded');
    }
    const [outLeft, inputLeft] = context.state as unknown as [number, number];
    const written = out.byteLength - outLeft;
    if (start === 'continue' && (inputLeft > 0 || outLeft === 0)) this.close();
    return { written, inputLeft };
  }

  close(): void {
    const context = this.#context;
    this.#context = undefined;
    context?.stream.close();
  }

  #open(): Context | undefined {
    if (this.#context && !this.#context.stream.destroyed) return this.#context;
    if (this.#available === false) return undefined;
    const stream = this.#create();
    const internals = stream as unknown as { _handle?: Partial<NativeHandle>; _writeState?: unknown };
    const handle = internals._handle;
    const state = internals._writeState;
    if (typeof handle?.writeSync !== 'function' || typeof handle.reset !== 'function' || !(state instanceof Uint32Array) || state.length < 2) {
      stream.close();
      this.#available = false;
      return undefined;
    }
    // The error was thrown to the caller already (frame()); the late event must not be an uncaught one.
    stream.on('error', () => undefined);
    this.#context = { stream, handle: handle as NativeHandle, state };
    return this.#context;
  }
}

/** Decodes whole zstd frames into caller buffers (restores: decision 177). */
export class ZstdFrameDecoder {
  readonly #native: NativeContext;

  /** `native: false` uses only the public API (tests; the fallback where the binding is missing). */
  constructor(options: { native?: boolean } = {}) {
    this.#native = new NativeContext(() => zlib.createZstdDecompress(), options.native === false ? false : undefined);
  }

  /** True when the native in-place path is available (decided on first use). */
  get native(): boolean {
    return this.#native.available;
  }

  /**
   * Decodes the frame in `frame` into `out`, returning how many bytes it
   * wrote. `out.byteLength` is the most the frame may decode to.
   * @throws Error when the frame does not decode, or decodes to more than `out` holds
   */
  decodeInto(frame: Uint8Array, out: Uint8Array): number {
    if (!this.#native.available) return decodeWithPublicApi(frame, out);
    const { written, inputLeft } = this.#native.frame(frame, out, 'reset');
    if (inputLeft > 0) throw tooLarge(out);
    return written;
  }

  /** Frees the native context (the next call makes a new one). */
  close(): void {
    this.#native.close();
  }
}

/** Encodes byte ranges as whole zstd frames (ingest: decision 180). */
export class ZstdFrameEncoder {
  readonly #native: NativeContext;
  readonly #level: number;
  /** Reused output space: frames are coded here, then copied out at their exact size. */
  #scratch = Buffer.alloc(0);

  /**
   * Frames carry their content size and no checksum (every chunk is verified
   * by its SHA-256). `native: false` uses only the public API.
   */
  constructor(level: number, options: { native?: boolean } = {}) {
    this.#level = level;
    this.#native = new NativeContext(() => zlib.createZstdCompress({ params: frameParams(level) }), options.native === false ? false : undefined);
  }

  get native(): boolean {
    return this.#native.available;
  }

  get level(): number {
    return this.#level;
  }

  /**
   * One frame holding `raw`, in a buffer of its own of exactly the frame's
   * size. Given all input at once with `ZSTD_e_end`, zstd takes the input
   * size as the frame's content size and sizes its parameters for it, as a
   * pledged size would.
   */
  encode(raw: Uint8Array): Buffer {
    if (!this.#native.available) return zlib.zstdCompressSync(raw, { pledgedSrcSize: raw.byteLength, params: frameParams(this.#level) });
    const bound = compressBound(raw.byteLength);
    // The scratch space is kept for chunk-sized inputs only; a larger one gets space of its own, dropped after.
    const scratch = bound > MAX_SCRATCH_BYTES ? Buffer.allocUnsafe(bound) : this.#scratchOf(bound);
    const { written, inputLeft } = this.#native.frame(raw, scratch.subarray(0, bound), 'continue');
    // Cannot happen within zstd's bound; a frame cut short would not decode to the chunk.
    if (inputLeft > 0) throw new Error(`zstd frame did not fit ${bound} bytes`);
    return Buffer.from(scratch.subarray(0, written));
  }

  /**
   * Codes one frame of `raw` straight into `out` (a worker's shared output
   * slot) and returns its length, or -1 when it does not fit; `out` past the
   * returned length is unspecified. Same bytes as {@link encode}.
   */
  encodeInto(raw: Uint8Array, out: Uint8Array): number {
    if (!this.#native.available) {
      const frame = zlib.zstdCompressSync(raw, { pledgedSrcSize: raw.byteLength, params: frameParams(this.#level) });
      if (frame.byteLength > out.byteLength) return -1;
      out.set(frame);
      return frame.byteLength;
    }
    const { written, inputLeft } = this.#native.frame(raw, out, 'continue');
    // zstd stops when the output is full, and a frame that filled it exactly may still owe its last bytes:
    // both count as "does not fit" (the context is reset before the next frame).
    return inputLeft > 0 || written >= out.byteLength ? -1 : written;
  }

  #scratchOf(bytes: number): Buffer {
    if (this.#scratch.byteLength < bytes) this.#scratch = Buffer.allocUnsafe(Math.min(MAX_SCRATCH_BYTES, Math.max(bytes, 2 * this.#scratch.byteLength)));
    return this.#scratch;
  }

  close(): void {
    this.#native.close();
  }
}

/** Scratch space an encoder keeps between calls (the default largest chunk, 256 KiB, needs ~257 KiB). */
const MAX_SCRATCH_BYTES = 4 * 1024 * 1024;

function frameParams(level: number): Record<number, number> {
  return {
    [zlib.constants.ZSTD_c_compressionLevel]: level,
    [zlib.constants.ZSTD_c_contentSizeFlag]: 1,
    [zlib.constants.ZSTD_c_checksumFlag]: 0,
  };
}

/** ZSTD_COMPRESSBOUND: the most one frame of `n` input bytes can take. */
function compressBound(n: number): number {
  return n + (n >>> 8) + (n < 128 * 1024 ? (128 * 1024 - n) >>> 11 : 0) + 64;
}

function decodeWithPublicApi(frame: Uint8Array, out: Uint8Array): number {
  let decoded: Uint8Array;
  try {
    decoded = zlib.zstdDecompressSync(frame, { maxOutputLength: Math.max(out.byteLength, 1) });
  } catch (err) {
    if ((err as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLarge(out);
    throw err;
  }
  if (decoded.byteLength > out.byteLength) throw tooLarge(out);
  out.set(decoded);
  return decoded.byteLength;
}

/** A frame that decodes to more bytes than the buffer given for it. */
export class FrameTooLargeError extends Error {}

function tooLarge(out: Uint8Array): Error {
  return new FrameTooLargeError(`zstd frame decodes to more than ${out.byteLength} bytes`);
}

/**
 * The decoded size a zstd frame's header declares (RFC 8878 §3.1.1.1:
 * Frame_Content_Size), or undefined when it declares none or is not a zstd
 * frame. A hint for sizing the output buffer, never trusted: the decoder
 * still bounds what it writes, and callers verify what comes out.
 */
export function zstdFrameContentSize(frame: Uint8Array): number | undefined {
  if (frame.byteLength < 6 || frame[0] !== 0x28 || frame[1] !== 0xb5 || frame[2] !== 0x2f || frame[3] !== 0xfd) return undefined;
  const descriptor = frame[4]!;
  const fcsFlag = descriptor >> 6;
  const singleSegment = (descriptor >> 5) & 1;
  const dictionaryIdBytes = [0, 1, 2, 4][descriptor & 3]!;
  const fcsBytes = [singleSegment ? 1 : 0, 2, 4, 8][fcsFlag]!;
  const at = 5 + (singleSegment ? 0 : 1) + dictionaryIdBytes;
  if (fcsBytes === 0 || frame.byteLength < at + fcsBytes) return undefined;
  let size = 0;
  for (let k = fcsBytes - 1; k >= 0; k--) size = size * 256 + frame[at + k]!;
  return fcsBytes === 2 ? size + 256 : size;
}
