/**
 * The queue of chunks a parallel ledger verification shares between the calling thread and its worker threads
 * (src/svc/ledger/verify.ts): two integers in a SharedArrayBuffer, the next chunk to hand out and the earliest chunk
 * known to hold a break. Every thread claims its next chunk itself with one atomic add, so a worker that finishes a
 * chunk starts the next one at once instead of waiting for the calling thread to read its message between two pages
 * (up to a page, ~10 ms on SQLite, per chunk: ~15 % of a worker's time in decision 170's measurements).
 */

const NEXT = 0;
const STOP_AFTER = 1;

export class ChunkQueue {
  readonly #cells: Int32Array;
  readonly chunks: number;

  /**
   * `chunks`: how many there are; `first`: the first index handed out by `claim` (the ones before it are dealt by
   * hand, `VerifyOptions.dealFirstChunks`). Pass `buffer` to attach to a queue made in another thread.
   */
  constructor(chunks: number, first = 0, buffer?: SharedArrayBuffer) {
    this.chunks = chunks;
    this.#cells = new Int32Array(buffer ?? new SharedArrayBuffer(2 * Int32Array.BYTES_PER_ELEMENT));
    if (!buffer) {
      this.#cells[NEXT] = first;
      this.#cells[STOP_AFTER] = chunks; // no break yet: every chunk is wanted
    }
  }

  /** What another thread passes to the constructor to share this queue. */
  get buffer(): SharedArrayBuffer {
    return this.#cells.buffer as SharedArrayBuffer;
  }

  /** The chunks a report needs: all of them, or up to and including the earliest one known to hold a break. */
  get wanted(): number {
    return Math.min(this.chunks, Atomics.load(this.#cells, STOP_AFTER) + 1);
  }

  /** Whether chunk `k` is still needed (no earlier chunk holds a break). */
  wants(k: number): boolean {
    return k < this.wanted;
  }

  /** The next chunk for the calling thread to verify, or undefined when none is left (or a break ended the run). */
  claim(): number | undefined {
    if (Atomics.load(this.#cells, NEXT) >= this.wanted) return undefined;
    const k = Atomics.add(this.#cells, NEXT, 1);
    return this.wants(k) ? k : undefined;
  }

  /** Chunk `k` holds a break: later chunks are no longer handed out (the report names the earliest break only). */
  breakAt(k: number): void {
    for (let seen = Atomics.load(this.#cells, STOP_AFTER); k < seen; ) {
      const was = Atomics.compareExchange(this.#cells, STOP_AFTER, seen, k);
      if (was === seen) return;
      seen = was;
    }
  }
}
