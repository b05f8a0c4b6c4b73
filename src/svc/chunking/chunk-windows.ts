/**
 * Reusable chunker windows (decision 181). The stream chunker copies the
 * incoming bytes into windows and yields chunks as views into them. A fresh
 * ArrayBuffer per window is external memory to V8, and the growth of external
 * memory is what started most of ingest's full collections: ~16 per 248 MiB
 * ingested through the CLI, each marking the server's whole heap.
 *
 * A window goes back to the pool only when nobody holds it. The chunker
 * holds it while it fills it, and each chunk cut from it holds it until the
 * consumer calls {@link ChunkWindows.release} for that chunk. A consumer that
 * never releases a chunk (an error path, a caller that keeps chunks) costs a
 * reuse, never correctness: a window whose count does not reach zero is simply
 * garbage-collected like any other buffer. The one rule that keeps it safe:
 * release a chunk once, after the last read of its bytes. Ingest releases
 * after the chunk's hash and its store call have finished, and the chunk
 * writers are done with a chunk's bytes when their put resolves
 * (ChunkWriter.put).
 */
import { TransferBuffers } from '../chunk-store/transfer-buffers.ts';

export class ChunkWindows {
  readonly #pool = new TransferBuffers();
  /** Holders per lent window. */
  readonly #holds = new Map<ArrayBuffer, number>();
  readonly #poison: number | undefined;

  /**
   * `poison`: fill every window with this byte as it returns to the pool, so that a chunk released too early
   * reads garbage at once (tests prove the release points this way; production leaves it unset).
   */
  constructor(options: { poison?: number } = {}) {
    this.#poison = options.poison;
  }

  /** A window of at least `bytes` bytes (its contents are unspecified), held once by the caller. */
  acquire(bytes: number): Uint8Array {
    const buffer = this.#pool.acquire(bytes);
    this.#holds.set(buffer, 1);
    return new Uint8Array(buffer);
  }

  /** One more holder of the window `view` is cut from (a chunk being handed out). */
  hold(view: Uint8Array): void {
    const buffer = view.buffer as ArrayBuffer;
    const holds = this.#holds.get(buffer);
    if (holds !== undefined) this.#holds.set(buffer, holds + 1);
  }

  /** Ends one holder's use of the window `view` is cut from; the last one returns it to the pool. Views of other buffers are ignored. */
  release(view: Uint8Array): void {
    const buffer = view.buffer as ArrayBuffer;
    const holds = this.#holds.get(buffer);
    if (holds === undefined) return;
    if (holds > 1) {
      this.#holds.set(buffer, holds - 1);
      return;
    }
    this.#holds.delete(buffer);
    if (this.#poison !== undefined) new Uint8Array(buffer).fill(this.#poison);
    this.#pool.release(buffer);
  }

  /** Windows lent and not yet returned (tests). */
  get lent(): number {
    return this.#holds.size;
  }

  /** Idle bytes kept for reuse (tests). */
  get idleBytes(): number {
    return this.#pool.idleBytes;
  }
}
