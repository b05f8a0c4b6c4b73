/**
 * Decoded frames for reads of framed chunks (decisions 157, 207): a small
 * LRU of decode promises, so that concurrent readers of one frame share one
 * decode and a restore's neighbouring chunks find their frame decoded. A
 * frame decoded into a pooled buffer (frame-buffers.ts) gives it back when it
 * leaves the cache and its last reader is done, never while a reader may
 * still copy from it.
 */
import { FRAME_TARGET_BYTES } from '../chunking/frame-codec.ts';
import type { FrameBuffers } from './frame-buffers.ts';

export interface FrameEntry {
  value: Promise<Uint8Array | null | undefined>;
  /** Counted against the cache's bound (a decode in flight counts as a frame's target size). */
  bytes: number;
  /** Readers between taking the entry and the end of their `use` of its bytes. */
  users: number;
  /** Out of the cache: its buffer goes back to the pool once no reader is left. */
  dropped: boolean;
  /** The pooled buffer the frame decoded into, if any. */
  pooled?: ArrayBuffer;
}

/**
 * Decoded frames by key, least recently used dropped first once their bytes
 * pass the bound. Entries are promises, so concurrent readers of one frame
 * wait for a single decode. A dropped frame's pooled buffer is given back
 * only when its last reader is done with it (withFrame), never while a
 * reader may still copy from it.
 */
export class FrameCache {
  readonly #max: number;
  readonly #buffers: FrameBuffers;
  readonly #entries = new Map<string, FrameEntry>();
  #bytes = 0;

  constructor(maxBytes: number, buffers: FrameBuffers) {
    this.#max = maxBytes;
    this.#buffers = buffers;
  }

  get(key: string): FrameEntry | undefined {
    const e = this.#entries.get(key);
    if (!e) return undefined;
    this.#entries.delete(key);
    this.#entries.set(key, e);
    return e;
  }

  /** A new entry for `key`, whose value `start` begins to compute. */
  add(key: string, start: (entry: FrameEntry) => Promise<Uint8Array | null | undefined>): FrameEntry {
    this.delete(key);
    const entry: FrameEntry = { value: Promise.resolve(undefined), bytes: FRAME_TARGET_BYTES, users: 0, dropped: false };
    entry.value = start(entry);
    this.#entries.set(key, entry);
    this.#bytes += entry.bytes;
    this.#evict();
    return entry;
  }

  settled(entry: FrameEntry, bytes: number): void {
    if (entry.dropped || entry.bytes === bytes) return;
    this.#bytes += bytes - entry.bytes;
    entry.bytes = bytes;
    this.#evict();
  }

  /** Drops the entry of `key` (only if it is `only`, when given: another reader may have replaced it). */
  delete(key: string, only?: FrameEntry): void {
    const e = this.#entries.get(key);
    if (!e || (only && e !== only)) return;
    this.#entries.delete(key);
    this.#bytes -= e.bytes;
    e.dropped = true;
    if (e.users === 0) this.#release(e);
  }

  /** A reader is done with the entry's bytes. */
  done(entry: FrameEntry): void {
    entry.users--;
    if (entry.dropped && entry.users === 0) this.#release(entry);
  }

  #release(entry: FrameEntry): void {
    if (!entry.pooled) return;
    this.#buffers.release(entry.pooled);
    entry.pooled = undefined;
  }

  #evict(): void {
    for (const [key] of this.#entries) {
      if (this.#bytes <= this.#max || this.#entries.size <= 1) return;
      this.delete(key);
    }
  }
}
