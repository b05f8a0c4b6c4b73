/**
 * Buffers lent to chunk reads (decision 173), and given back by their last
 * user. (The pack store's pending entries used them too until decision 192
 * gave each pending pack slabs of its own.) A full restore reads every byte of an object into a fresh buffer;
 * fresh ArrayBuffers are external memory to V8, whose growth starts a full
 * (mark-compact) collection every few tens of MiB — measured as the largest
 * single share of the server's CPU on a restore (docs/decisions/154). Reads
 * that borrow from here reuse the same few MiB instead.
 *
 * The rule that keeps this safe: a borrowed buffer has exactly one owner at a
 * time, and only that owner gives it back, once, after its last use. Giving
 * back a buffer that was not lent from here (a store that does not borrow, a
 * decoded chunk) or giving one back twice does nothing, so a caller may give
 * back whatever it received.
 */
import { TransferBuffers } from './transfer-buffers.ts';

export class ReadBuffers {
  readonly #pool = new TransferBuffers();
  /** ArrayBuffers lent and not yet given back: the only ones `giveBack` returns to the pool. */
  readonly #lent = new WeakSet<ArrayBuffer>();

  /** A buffer of exactly `bytes` bytes (uninitialised), owned by the caller until given back. */
  borrow(bytes: number): Buffer {
    const backing = this.#pool.acquire(bytes);
    this.#lent.add(backing);
    return Buffer.from(backing, 0, bytes);
  }

  /** Ends the caller's use of `view` (a borrowed buffer, or any view of one); anything else is ignored. */
  giveBack(view: Uint8Array): void {
    const backing = view.buffer as ArrayBuffer;
    if (!this.#lent.has(backing)) return;
    this.#lent.delete(backing);
    this.#pool.release(backing);
  }

  /** Idle bytes kept for the next borrow (tests). */
  get idleBytes(): number {
    return this.#pool.idleBytes;
  }
}
