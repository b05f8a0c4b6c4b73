/**
 * Decodes one zstd frame into a buffer the caller gives, with one native
 * decompression context kept across calls.
 *
 * Why not `zlib.zstdDecompress`: each call builds a stream object, a native
 * context and a fresh output buffer, and the output buffers are external
 * memory, which is what starts V8's full collections. Restoring 100 MiB of
 * text that way cost ~4.5 full collections of the server's whole heap (the
 * collector's threads spent ~3.5 ms of CPU per MiB, more than the decoding);
 * decoding into the restore's borrowed buffers allocates nothing per chunk
 * (decision 177).
 *
 * Node's public zlib API has no "decode into this buffer" call, so this uses
 * the `_handle.writeSync(flush, in, inOff, inLen, out, outOff, outLen)` method
 * that `zlib.zstdDecompressSync` itself is built on (lib/zlib.js
 * processChunkSync). It is not documented: {@link ZstdFrameDecoder.native}
 * says whether it was found, and without it every call falls back to the
 * public `zstdDecompressSync` plus a copy, which gives the same bytes.
 *
 * Every frame starts on a reset context, so a truncated or damaged frame
 * cannot leak state into the next one; a context that reported an error is
 * dropped and a new one made. The decoded length is returned, never trusted:
 * callers verify the bytes against the chunk's SHA-256.
 */
import zlib from 'node:zlib';

interface NativeHandle {
  writeSync(flush: number, input: Uint8Array, inOff: number, inLen: number, out: Uint8Array, outOff: number, outLen: number): void;
  reset(): void;
}

interface Context {
  stream: zlib.ZstdDecompress;
  handle: NativeHandle;
  /** [available output after, available input after], written by writeSync. */
  state: Uint32Array;
}

export class ZstdFrameDecoder {
  #context: Context | undefined;
  #native: boolean | undefined;

  /** `native: false` uses only the public API (tests; the fallback where the binding is missing). */
  constructor(options: { native?: boolean } = {}) {
    if (options.native === false) this.#native = false;
  }

  /** True when the native in-place path is available (decided on first use). */
  get native(): boolean {
    if (this.#native === undefined) this.#native = this.#open() !== undefined;
    return this.#native;
  }

  /**
   * Decodes the frame in `frame` into `out`, returning how many bytes it
   * wrote. `out.byteLength` is the most the frame may decode to.
   * @throws Error when the frame does not decode, or decodes to more than `out` holds
   */
  decodeInto(frame: Uint8Array, out: Uint8Array): number {
    const context = this.native ? this.#open() : undefined;
    if (!context) return decodeWithPublicApi(frame, out);
    context.handle.reset();
    context.handle.writeSync(zlib.constants.ZSTD_e_end, frame, 0, frame.byteLength, out, 0, out.byteLength);
    // The binding reports a decoding error by destroying the stream (which closes the native handle) inside
    // writeSync; its 'error' event comes later. A destroyed stream's handle must never be written again.
    if (context.stream.destroyed) {
      this.#context = undefined;
      throw context.stream.errored ?? new Error('zstd frame does not decode');
    }
    const [outLeft, inLeft] = context.state as unknown as [number, number];
    if (inLeft > 0) throw tooLarge(out);
    return out.byteLength - outLeft;
  }

  /** Frees the native context (the next call makes a new one). */
  close(): void {
    const context = this.#context;
    this.#context = undefined;
    context?.stream.close();
  }

  #open(): Context | undefined {
    if (this.#context && !this.#context.stream.destroyed) return this.#context;
    if (this.#native === false) return undefined;
    const stream = zlib.createZstdDecompress();
    const internals = stream as unknown as { _handle?: Partial<NativeHandle>; _writeState?: unknown };
    const handle = internals._handle;
    const state = internals._writeState;
    if (typeof handle?.writeSync !== 'function' || typeof handle.reset !== 'function' || !(state instanceof Uint32Array) || state.length < 2) {
      stream.close();
      this.#native = false;
      return undefined;
    }
    const context: Context = { stream, handle: handle as NativeHandle, state };
    // The error was thrown to the caller already (decodeInto); the late event must not be an uncaught one.
    stream.on('error', () => undefined);
    this.#context = context;
    return context;
  }
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

function tooLarge(out: Uint8Array): Error {
  return new Error(`zstd frame decodes to more than ${out.byteLength} bytes`);
}
