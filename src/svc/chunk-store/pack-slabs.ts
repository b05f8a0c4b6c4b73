/**
 * Memory for a pending pack's entries (decision 192): the pack copies each
 * new chunk into slabs of {@link SLAB_BYTES}, one after another, and hands
 * all of its slabs back at once when it has been written. Slabs are kept for
 * the next packs, up to {@link MAX_IDLE_SLABS}.
 *
 * Before, every entry borrowed a buffer of its own from power-of-two size
 * classes (decision 181). A 65 KiB zstd frame took a 128 KiB buffer, and
 * the idle cap of the classes dropped buffers that the next pack then
 * allocated afresh, zero-filled by V8: on a host where touching fresh pages
 * is expensive, those allocations were a fifth of the server's page faults
 * during an ingest. Slabs waste at most the tail of a slab per pack, and a
 * pack of 8 MiB reuses eight of them.
 *
 * Entries below {@link SMALL_ENTRY_BYTES} are copied plainly (Node's own
 * allocation pool serves those): a pack of one small object does not hold a
 * slab. An entry larger than a slab gets a buffer of its own.
 */

/** Bytes per slab: four maximum-size chunks. */
export const SLAB_BYTES = 1024 * 1024;
/**
 * Slabs kept idle between packs: the old per-entry pool's 16 MiB. (32 made the memory soak's growth check fail:
 * decision 192.)
 */
export const MAX_IDLE_SLABS = 16;
/** Entries smaller than this are plain copies, not carved from a slab. */
export const SMALL_ENTRY_BYTES = 16 * 1024;

/** The free slabs of one store. */
export class SlabPool {
  readonly #idle: Buffer[] = [];
  readonly maxIdle: number;

  constructor(maxIdle = MAX_IDLE_SLABS) {
    this.maxIdle = maxIdle;
  }

  /** A slab (contents unspecified). */
  acquire(): Buffer {
    return this.#idle.pop() ?? Buffer.allocUnsafeSlow(SLAB_BYTES);
  }

  /** Gives slabs back; those beyond the idle cap are left to the collector. */
  release(slabs: readonly Buffer[]): void {
    for (const slab of slabs) if (this.#idle.length < this.maxIdle) this.#idle.push(slab);
  }

  /** Slabs held idle (tests). */
  get idle(): number {
    return this.#idle.length;
  }
}

/** The slabs of one pending pack. */
export class SlabArena {
  readonly #pool: SlabPool;
  readonly #slabs: Buffer[] = [];
  /** Bytes used of the last slab. */
  #used = SLAB_BYTES;
  #released = false;

  constructor(pool: SlabPool) {
    this.#pool = pool;
  }

  /** A copy of `data` that stays valid until {@link release}. */
  copy(data: Uint8Array): Buffer {
    if (this.#released) throw new Error('the slabs of this pack were given back');
    if (data.byteLength < SMALL_ENTRY_BYTES || data.byteLength > SLAB_BYTES) return Buffer.from(data);
    if (this.#used + data.byteLength > SLAB_BYTES) {
      this.#slabs.push(this.#pool.acquire());
      this.#used = 0;
    }
    const slab = this.#slabs.at(-1)!;
    const copy = slab.subarray(this.#used, this.#used + data.byteLength);
    copy.set(data);
    this.#used += data.byteLength;
    return copy;
  }

  /** Ends every copy's life: the slabs go back to the pool. Once; later calls do nothing. */
  release(): void {
    if (this.#released) return;
    this.#released = true;
    this.#pool.release(this.#slabs);
    this.#slabs.length = 0;
  }

  /** Slabs this pack holds (tests). */
  get slabs(): number {
    return this.#slabs.length;
  }
}
