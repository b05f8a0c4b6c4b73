/**
 * Frame encoding and decoding on worker threads (a 1 MiB BWT frame costs
 * ~100 ms of CPU to encode and ~60 ms to decode: never on the event loop).
 * Up to two workers (the reference machine has two cores), started on first
 * use and unreferenced, so they never keep a process alive; small frames are
 * handled inline. A worker that dies fails its requests and is replaced on
 * the next one.
 */
import os from 'node:os';
import { Worker } from 'node:worker_threads';
import { decodeFrameInto, decodeFrameSync, encodeFrameSync, FRAME_ZSTD_FAST_LEVEL, FRAME_ZSTD_LEVEL, type FrameCodec } from './frame-codec.ts';
import type { FrameReply, FrameRequest } from './frame-worker.ts';
import { ZstdFrameDecoder } from './zstd-native.ts';

/** Frames up to this many bytes are coded on the calling thread (a worker round trip costs more). */
const INLINE_FRAME_BYTES = 16 * 1024;

/** Small frames decoded into a caller's buffer on the calling thread. */
const inlineDecoder = new ZstdFrameDecoder();

interface Slot {
  worker: Worker;
  busy: number;
}

export class FramePool {
  static #shared: FramePool | undefined;
  static shared(): FramePool {
    FramePool.#shared ??= new FramePool();
    return FramePool.#shared;
  }

  readonly #size: number;
  readonly #slots: Slot[] = [];
  readonly #pending = new Map<number, { slot: Slot; resolve: (d: Uint8Array) => void; reject: (e: Error) => void }>();
  #nextId = 0;

  constructor(size = Math.max(1, Math.min(2, os.availableParallelism()))) {
    this.#size = size;
  }

  /**
   * `transfer`: the caller gives up `raw` (a whole ArrayBuffer of its own,
   * referenced nowhere else), which is moved to the worker instead of copied.
   */
  encode(raw: Uint8Array, codec: FrameCodec, level = codec === 'bwt' ? FRAME_ZSTD_LEVEL : FRAME_ZSTD_FAST_LEVEL, transfer = false): Promise<Uint8Array> {
    if (raw.byteLength <= INLINE_FRAME_BYTES || codec === 'raw') return Promise.resolve(encodeFrameSync(raw, codec, level));
    const whole = transfer && raw.buffer instanceof ArrayBuffer && raw.byteOffset === 0 && raw.byteLength === raw.buffer.byteLength;
    const data = whole ? raw : new Uint8Array(raw); // else the caller keeps its bytes; the copy is transferred
    return this.#call({ id: 0, op: 'encode', codec, level, data }, data);
  }

  decode(payload: Uint8Array): Promise<Uint8Array> {
    if (payload.byteLength <= INLINE_FRAME_BYTES / 4) {
      try {
        return Promise.resolve(decodeFrameSync(payload));
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    }
    const data = new Uint8Array(payload);
    return this.#call({ id: 0, op: 'decode', data }, data);
  }

  /**
   * Decodes a frame into `out`, a whole ArrayBuffer the caller gives up (it is
   * transferred to a worker and detached here); the answer is a view of the
   * same memory, come back as a new ArrayBuffer object, holding the decoded
   * bytes. Restores decode dense frames into pooled buffers this way
   * (decision 207): a fresh buffer per frame is external memory to V8, and its
   * growth starts full collections of the whole heap.
   */
  decodeInto(payload: Uint8Array, out: ArrayBuffer): Promise<Uint8Array> {
    if (payload.byteLength <= INLINE_FRAME_BYTES / 4) {
      try {
        return Promise.resolve(new Uint8Array(out, 0, decodeFrameInto(payload, new Uint8Array(out), inlineDecoder)));
      } catch (err) {
        return Promise.reject(err instanceof Error ? err : new Error(String(err)));
      }
    }
    const data = new Uint8Array(payload);
    return this.#call({ id: 0, op: 'decodeInto', data, out }, data, [out]);
  }

  #call(request: FrameRequest, data: Uint8Array, transfer: ArrayBuffer[] = []): Promise<Uint8Array> {
    const slot = this.#slot();
    const id = ++this.#nextId;
    request.id = id;
    if (slot.busy++ === 0) slot.worker.ref(); // a request in flight keeps the process alive until answered
    return new Promise<Uint8Array>((resolve, reject) => {
      this.#pending.set(id, { slot, resolve, reject });
      slot.worker.postMessage(request, [data.buffer as ArrayBuffer, ...transfer]);
    });
  }

  #slot(): Slot {
    if (this.#slots.length < this.#size) {
      const worker = new Worker(new URL('./frame-worker.ts', import.meta.url));
      const slot: Slot = { worker, busy: 0 };
      worker.unref();
      worker.on('message', (reply: FrameReply) => this.#settle(reply));
      worker.on('error', (err) => this.#fail(slot, err));
      worker.on('exit', (code) => this.#fail(slot, new Error(`frame worker exited with code ${code}`)));
      this.#slots.push(slot);
      return slot;
    }
    let best = this.#slots[0]!;
    for (const s of this.#slots) if (s.busy < best.busy) best = s;
    return best;
  }

  #settle(reply: FrameReply): void {
    const waiting = this.#pending.get(reply.id);
    if (!waiting) return;
    this.#pending.delete(reply.id);
    if (--waiting.slot.busy === 0) waiting.slot.worker.unref();
    if ('error' in reply) waiting.reject(new Error(reply.error));
    else waiting.resolve(reply.data);
  }

  #fail(slot: Slot, err: Error): void {
    const at = this.#slots.indexOf(slot);
    if (at >= 0) this.#slots.splice(at, 1);
    for (const [id, p] of this.#pending) {
      if (p.slot !== slot) continue;
      this.#pending.delete(id);
      p.reject(err);
    }
  }
}
