/**
 * SHA-256 off the main thread. Ingest hashes every byte twice (the whole
 * object, and each chunk for its id); on a CPU without SHA extensions that is
 * ~4 ns per byte each, more than chunking itself. Two worker threads take it:
 * one accumulates whole-object streams (in order), the other answers chunk
 * digests, while the main thread only chunks and orchestrates. Measured ~1.7×
 * ingest hashing throughput on the 2-core reference machine.
 *
 * Workers read the bytes in place from SharedArrayBuffers (the stream
 * chunker's windows are shared); other views are copied into one first.
 * Workers are unreferenced while idle, so they never keep a process alive.
 */
import { Worker } from 'node:worker_threads';
import type { HashReply, HashRequest } from './hash-worker.ts';

/** Largest range sent in one stream update. */
const COALESCE_BYTES = 1024 * 1024;

/**
 * `view` itself when it lies in shared memory, else a copy that does. Readers
 * that hash the same bytes more than once (rehydration: chunk id, then the
 * whole object) copy once with this and pass the result on.
 */
export function toSharedBytes(view: Uint8Array): Uint8Array {
  if (view.buffer instanceof SharedArrayBuffer) return view;
  const copy = new Uint8Array(new SharedArrayBuffer(view.byteLength));
  copy.set(view);
  return copy;
}

function shared(view: Uint8Array): { sab: SharedArrayBuffer; offset: number; length: number } {
  const bytes = toSharedBytes(view);
  return { sab: bytes.buffer as SharedArrayBuffer, offset: bytes.byteOffset, length: bytes.byteLength };
}

/** Accumulates the SHA-256 of a byte stream on a worker; `update` in order, then `digest` once. */
export interface StreamHasher {
  update(view: Uint8Array): void;
  digest(): Promise<string>;
}

export class HashPool {
  static #shared: HashPool | undefined;

  /** The process-wide pool (created on first use). */
  static shared(): HashPool {
    HashPool.#shared ??= new HashPool();
    return HashPool.#shared;
  }

  readonly #streamWorker: Worker;
  readonly #chunkWorker: Worker;
  readonly #pending = new Map<number, { resolve: (d: string) => void; reject: (e: Error) => void }>();
  #nextId = 0;
  #nextStream = 0;
  #broken: Error | undefined;

  constructor() {
    const url = new URL('./hash-worker.ts', import.meta.url);
    this.#streamWorker = new Worker(url);
    this.#chunkWorker = new Worker(url);
    for (const w of [this.#streamWorker, this.#chunkWorker]) {
      w.unref();
      w.on('message', (reply: HashReply) => this.#settle(reply));
      w.on('error', (err) => this.#fail(err));
      w.on('exit', (code) => this.#fail(new Error(`hash worker exited with code ${code}`)));
    }
  }

  /** `ch_`-less hex SHA-256 of one chunk. */
  digest(view: Uint8Array): Promise<string> {
    const { sab, offset, length } = shared(view);
    return this.#call(this.#chunkWorker, (id) => ({ op: 'chunk', id, sab, offset, length }));
  }

  openStream(): StreamHasher {
    const stream = ++this.#nextStream;
    const worker = this.#streamWorker;
    // Consecutive views of one shared buffer (successive chunks of a window)
    // are sent as one range: one message per ~MiB instead of one per chunk.
    let pending: { sab: SharedArrayBuffer; offset: number; length: number } | undefined;
    const send = () => {
      if (pending) worker.postMessage({ op: 'update', stream, ...pending } satisfies HashRequest);
      pending = undefined;
    };
    return {
      update: (view) => {
        const next = shared(view);
        if (pending && pending.sab === next.sab && pending.offset + pending.length === next.offset && pending.length < COALESCE_BYTES) {
          pending.length += next.length;
          return;
        }
        send();
        pending = next;
      },
      digest: () => {
        send();
        return this.#call(worker, (id) => ({ op: 'digest', id, stream }));
      },
    };
  }

  #call(worker: Worker, request: (id: number) => HashRequest): Promise<string> {
    if (this.#broken) return Promise.reject(this.#broken);
    const id = ++this.#nextId;
    return new Promise<string>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      if (this.#pending.size === 1) this.#ref(true);
      worker.postMessage(request(id));
    });
  }

  #settle(reply: HashReply): void {
    const waiter = this.#pending.get(reply.id);
    if (!waiter) return;
    this.#pending.delete(reply.id);
    if (this.#pending.size === 0) this.#ref(false);
    if ('digest' in reply) waiter.resolve(reply.digest);
    else waiter.reject(new Error(reply.error));
  }

  #fail(err: Error): void {
    this.#broken ??= err;
    for (const waiter of this.#pending.values()) waiter.reject(err);
    this.#pending.clear();
    if (HashPool.#shared === this) HashPool.#shared = undefined; // the next caller gets a fresh pool
  }

  /** Keeps the process alive only while answers are awaited. */
  #ref(on: boolean): void {
    for (const w of [this.#streamWorker, this.#chunkWorker]) {
      if (on) w.ref();
      else w.unref();
    }
  }
}
