/**
 * SHA-256 off the main thread. Ingest hashes every byte twice (the whole
 * object, and each chunk for its id); on a CPU without SHA extensions that is
 * ~4 ns per byte each, more than chunking itself. Two worker threads take it:
 * one accumulates whole-object streams (in order), the other answers chunk
 * digests, while the main thread only chunks and orchestrates. Measured ~1.7×
 * ingest hashing throughput on the 2-core reference machine.
 *
 * Bytes travel to a worker in a pooled ArrayBuffer that is transferred there
 * and back with the answer (transfer-buffers.ts): one memcpy per byte, and
 * memory that one isolate owns at a time. Inputs below
 * {@link INLINE_HASH_BYTES} are hashed on the calling thread instead: a
 * worker round trip (~100 µs measured) costs more than hashing them, and
 * small objects then never touch a worker at all.
 *
 * Workers are unreferenced while idle, so they never keep a process alive.
 *
 * **CPUs with SHA instructions** (decision 154). Where SHA-256 runs at
 * ≥ {@link FAST_SHA256_BYTES_PER_MS} on the calling thread (x86 SHA-NI,
 * ARMv8 crypto extensions: ~1.4 GB/s measured on the reference machine), a
 * 64 KiB chunk hashes in ~45 µs — less than the copy, the two messages and
 * the wake-ups of a worker round trip, which cost the process more CPU than
 * they save (measured: 200 MiB in 64 KiB chunks, 8 in flight: 230–300 ms CPU
 * and 240–320 ms wall through the workers, 130 ms both inline). There the
 * pool hashes everything on the calling thread and never starts a worker.
 * The decision is made once per pool by timing a few MiB of SHA-256
 * ({@link measureSha256BytesPerMs}); `inline` overrides it.
 */
import { createHash } from 'node:crypto';
import { Worker } from 'node:worker_threads';
import type { HashReply, HashRequest } from './hash-worker.ts';
import { MAX_CLASS_BYTES, TransferBuffers } from './transfer-buffers.ts';

/** Inputs up to this size are hashed on the calling thread (16 KiB: ~40 µs, below a worker round trip). */
export const INLINE_HASH_BYTES = 16 * 1024;

/** Bytes a stream collects before sending them to its worker in one message. */
const COALESCE_BYTES = MAX_CLASS_BYTES;

const sha256Hex = (view: Uint8Array): string => createHash('sha256').update(view).digest('hex');

/** SHA-256 throughput above which hashing on the calling thread beats a worker round trip (bytes per ms; 800 MB/s). */
export const FAST_SHA256_BYTES_PER_MS = 800_000;

/** SHA-256 throughput of the calling thread in bytes per ms: the best of a few 1 MiB runs (~3 ms in all on a fast CPU). */
export function measureSha256BytesPerMs(): number {
  const sample = new Uint8Array(1024 * 1024);
  let best = 0;
  for (let k = 0; k < 4; k++) {
    const started = performance.now();
    createHash('sha256').update(sample).digest();
    const ms = performance.now() - started;
    best = Math.max(best, sample.byteLength / Math.max(ms, 1e-3));
  }
  return best;
}

export interface HashPoolOptions {
  /** Hash every input on the calling thread (no workers). Default: measured ({@link FAST_SHA256_BYTES_PER_MS}). */
  inline?: boolean;
}

/** Accumulates the SHA-256 of a byte stream; `update` in order, then `digest` once. Views may be reused by the caller after `update` returns. */
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

  /** True when every input is hashed on the calling thread (a CPU with SHA instructions, or `inline: true`). */
  readonly inline: boolean;

  constructor(options: HashPoolOptions = {}) {
    this.inline = options.inline ?? measureSha256BytesPerMs() >= FAST_SHA256_BYTES_PER_MS;
  }

  #workers: { stream: Worker; chunk: Worker } | undefined;
  readonly #buffers = new TransferBuffers();
  readonly #pending = new Map<number, { resolve: (d: string) => void; reject: (e: Error) => void }>();
  #nextId = 0;
  #nextStream = 0;
  #broken: Error | undefined;

  /**
   * Started on first use: a process that only hashes small inputs never
   * starts them (and an unreferenced worker that was never sent a message
   * would keep the process alive).
   */
  #started(): { stream: Worker; chunk: Worker } {
    if (this.#workers) return this.#workers;
    const url = new URL('./hash-worker.ts', import.meta.url);
    this.#workers = { stream: new Worker(url), chunk: new Worker(url) };
    for (const w of [this.#workers.stream, this.#workers.chunk]) {
      w.unref();
      w.on('message', (reply: HashReply) => this.#settle(reply));
      w.on('error', (err) => this.#fail(err));
      w.on('exit', (code) => this.#fail(new Error(`hash worker exited with code ${code}`)));
    }
    return this.#workers;
  }

  /** Idle transfer-buffer bytes (tests). */
  get idleBufferBytes(): number {
    return this.#buffers.idleBytes;
  }

  /** `ch_`-less hex SHA-256 of one chunk. */
  digest(view: Uint8Array): Promise<string> {
    if (this.inline || view.byteLength <= INLINE_HASH_BYTES) return Promise.resolve(sha256Hex(view));
    const buffer = this.#buffers.acquire(view.byteLength);
    new Uint8Array(buffer).set(view);
    return this.#call(this.#started().chunk, (id) => ({ op: 'chunk', id, buffer, length: view.byteLength }), buffer);
  }

  openStream(): StreamHasher {
    if (this.inline) {
      const hash = createHash('sha256');
      return {
        update: (view) => void hash.update(view),
        digest: () => {
          try {
            return Promise.resolve(hash.digest('hex'));
          } catch (err) {
            return Promise.reject(err as Error);
          }
        },
      };
    }
    const stream = ++this.#nextStream;
    // Bytes are staged in one buffer: a small object's fit in ≤ INLINE_HASH_BYTES
    // and are hashed here at digest time; a large one's are sent one ~MiB
    // buffer per message instead of one message per chunk.
    let staging: Uint8Array | undefined;
    let staged = 0;
    let sent = false;
    const send = () => {
      if (!staging || staged === 0) return;
      const buffer = staging.buffer as ArrayBuffer;
      this.#started().stream.postMessage({ op: 'update', stream, buffer, length: staged } satisfies HashRequest, [buffer]);
      sent = true;
      staging = undefined;
      staged = 0;
    };
    return {
      update: (view) => {
        let from = 0;
        while (from < view.byteLength) {
          if (!staging || staged === staging.byteLength) {
            send();
            // A stream that is still small stays small; past that, full-size buffers.
            const small = !sent && view.byteLength - from <= INLINE_HASH_BYTES;
            staging = new Uint8Array(this.#buffers.acquire(small ? INLINE_HASH_BYTES : COALESCE_BYTES));
          } else if (!sent && staging.byteLength < COALESCE_BYTES && staged + (view.byteLength - from) > staging.byteLength) {
            // Outgrew the small buffer: move the staged bytes to a full-size one.
            const bigger = new Uint8Array(this.#buffers.acquire(COALESCE_BYTES));
            bigger.set(staging.subarray(0, staged));
            this.#buffers.release(staging.buffer as ArrayBuffer);
            staging = bigger;
          }
          const take = Math.min(view.byteLength - from, staging.byteLength - staged);
          staging.set(view.subarray(from, from + take), staged);
          staged += take;
          from += take;
        }
      },
      digest: () => {
        if (!sent && staged <= INLINE_HASH_BYTES) {
          const digest = sha256Hex(staging ? staging.subarray(0, staged) : new Uint8Array(0));
          if (staging) this.#buffers.release(staging.buffer as ArrayBuffer);
          staging = undefined;
          staged = 0;
          return Promise.resolve(digest);
        }
        send();
        return this.#call(this.#started().stream, (id) => ({ op: 'digest', id, stream }));
      },
    };
  }

  #call(worker: Worker, request: (id: number) => HashRequest, transfer?: ArrayBuffer): Promise<string> {
    if (this.#broken) return Promise.reject(this.#broken);
    const id = ++this.#nextId;
    return new Promise<string>((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      if (this.#pending.size === 1) this.#ref(true);
      worker.postMessage(request(id), transfer ? [transfer] : []);
    });
  }

  #settle(reply: HashReply): void {
    // Every buffer comes back with its answer (or alone, after a stream update).
    if (reply.buffer) this.#buffers.release(reply.buffer);
    if (!('id' in reply)) return;
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
    if (!this.#workers) return;
    for (const w of [this.#workers.stream, this.#workers.chunk]) {
      if (on) w.ref();
      else w.unref();
    }
  }
}
