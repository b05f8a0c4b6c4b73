/**
 * A small free list of ArrayBuffers that carry bytes to the hash workers and
 * back (hash-pool.ts). A buffer is *transferred* to a worker, not shared: it
 * is detached here while the worker hashes it and comes back with the answer,
 * so exactly one isolate owns its memory at any time and freeing it never
 * waits for another isolate's garbage collection. (The SharedArrayBuffers
 * used before lived until every isolate that had seen one collected; idle
 * workers rarely do, and resident memory grew by gigabytes: docs/chunking.md
 * "Memory", docs/decisions/111-memory-under-load.md.)
 *
 * Sizes are powers of two from {@link MIN_CLASS_BYTES} to
 * {@link MAX_CLASS_BYTES}; larger requests get an exact, unpooled buffer.
 * Idle buffers kept are capped at {@link MAX_IDLE_BYTES} in all, so the pool
 * never holds more than that between bursts.
 */

export const MIN_CLASS_BYTES = 16 * 1024;
export const MAX_CLASS_BYTES = 1024 * 1024;
/** Idle bytes kept for reuse, over all size classes. */
export const MAX_IDLE_BYTES = 16 * 1024 * 1024;

function classOf(bytes: number): number {
  let size = MIN_CLASS_BYTES;
  while (size < bytes) size *= 2;
  return size;
}

export class TransferBuffers {
  readonly #free = new Map<number, ArrayBuffer[]>();
  #idleBytes = 0;

  /** A buffer of at least `bytes` bytes (its contents are unspecified). */
  acquire(bytes: number): ArrayBuffer {
    if (bytes > MAX_CLASS_BYTES) return new ArrayBuffer(bytes);
    const size = classOf(bytes);
    const reused = this.#free.get(size)?.pop();
    if (reused) {
      this.#idleBytes -= size;
      return reused;
    }
    return new ArrayBuffer(size);
  }

  /** Gives a buffer back; kept only if it is of a pooled size and the idle cap allows. */
  release(buffer: ArrayBuffer): void {
    const size = buffer.byteLength;
    if (buffer.detached || size < MIN_CLASS_BYTES || size > MAX_CLASS_BYTES || classOf(size) !== size) return;
    if (this.#idleBytes + size > MAX_IDLE_BYTES) return;
    let list = this.#free.get(size);
    if (!list) this.#free.set(size, (list = []));
    list.push(buffer);
    this.#idleBytes += size;
  }

  /** Bytes held idle (tests, metrics). */
  get idleBytes(): number {
    return this.#idleBytes;
  }
}
