/**
 * The background purge of expired cache entries (decision 184). A lookup
 * never serves an expired entry, but without this nothing deleted one: every
 * AI cache miss stores an entry, so both cache tables grew without bound.
 *
 * Every `svc serve` process runs the timer (`cache.purge_interval_seconds`,
 * 0 = off); one process at a time purges, the holder of the `cache_purge`
 * lease (the `gc_leases` table of decision 116). The holder keeps renewing it
 * each round and between batches, so it stays the purger while it lives; a
 * holder that dies leaves a lease that expires `LEASE_INTERVALS` intervals
 * later, and then another process takes over; one that stops releases it.
 *
 * A round deletes, table by table, batches of at most
 * `cache.purge_batch_size` entries — one statement each, its own short
 * transaction — and yields to the event loop between batches, until a batch
 * comes back short. It is global maintenance across every tenant, and it can
 * only ever delete an entry whose `expires_at` is at least `GRACE_MS` in the
 * past: never an unexpired entry of any tenant, even from a process whose
 * clock runs up to a minute ahead of another's.
 */
import { randomBytes } from 'node:crypto';
import os from 'node:os';
import type { LeaseRepository } from '../store/repositories/leases.ts';

/** The cache tables with an expiry; the label of `svc_cache_entries_purged_total{cache}`. */
export const PURGED_CACHES = ['exact', 'semantic'] as const;
export type PurgedCache = (typeof PURGED_CACHES)[number];

/** An entry is deleted once it has been expired this long (clock skew between processes on one database). */
export const GRACE_MS = 60_000;
/** The lease outlives its holder by this many intervals (at least a minute) before another process takes over. */
const LEASE_INTERVALS = 3;
const LEASE_MIN_MS = 60_000;
const LEASE = 'cache_purge';

export interface ExpiredEntries {
  /** Deletes up to `limit` entries that expired at or before `cutoffIso`; returns how many. */
  deleteExpired(cutoffIso: string, limit: number): Promise<number>;
}

/** The lease methods the purge uses (store.leases). */
export type PurgeLease = Pick<LeaseRepository, 'takeLease' | 'releaseLease'>;

export interface CachePurgeDeps {
  tables: Readonly<Record<PurgedCache, ExpiredEntries>>;
  lease: PurgeLease;
  intervalMs: number;
  batchSize: number;
  /** Called after each batch that deleted something. */
  onPurged?: (cache: PurgedCache, rows: number) => void;
  onError?: (err: unknown) => void;
  /** The clock (tests move it). */
  now?: () => Date;
}

export interface PurgeRound {
  /** False when another process holds the lease (nothing was read or deleted). */
  leader: boolean;
  purged: Record<PurgedCache, number>;
  batches: number;
}

/** Lets the event loop run (I/O callbacks, timers) between two batches. */
const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

export class CachePurge {
  readonly #d: CachePurgeDeps;
  readonly #holder: string;
  readonly #now: () => Date;
  readonly #leaseMs: number;
  #timer: NodeJS.Timeout | undefined;
  #round: Promise<unknown> = Promise.resolve();
  #running = false;
  #stopped = false;

  constructor(deps: CachePurgeDeps) {
    if (!(deps.batchSize >= 1)) throw new Error('cache purge: batch size must be at least 1');
    this.#d = deps;
    // Unique per instance; host and pid only tell an operator who holds it.
    this.#holder = `cache_purge_${randomBytes(8).toString('hex')}@${os.hostname()}/${process.pid}`;
    this.#now = deps.now ?? (() => new Date());
    this.#leaseMs = Math.max(LEASE_MIN_MS, LEASE_INTERVALS * deps.intervalMs);
  }

  /** Starts the timer (unref'd: it never keeps the process alive); a no-op when the interval is 0. */
  start(): void {
    if (!(this.#d.intervalMs > 0) || this.#timer) return;
    this.#timer = setInterval(() => {
      if (this.#running || this.#stopped) return;
      this.#round = this.runOnce().catch((err: unknown) => this.#d.onError?.(err));
    }, this.#d.intervalMs);
    this.#timer.unref();
  }

  /** Stops the timer, waits for the round in flight (the store is closed after this) and gives the lease back. */
  async stop(): Promise<void> {
    this.#stopped = true;
    clearInterval(this.#timer);
    await this.#round;
    await this.#d.lease.releaseLease(LEASE, this.#holder).catch(() => undefined);
  }

  /** One round: take or renew the lease, then purge every table until nothing expired is left. */
  async runOnce(): Promise<PurgeRound> {
    const round: PurgeRound = { leader: false, purged: { exact: 0, semantic: 0 }, batches: 0 };
    if (this.#running) return round;
    this.#running = true;
    try {
      if (!(await this.#renew())) return round;
      round.leader = true;
      for (const cache of PURGED_CACHES) {
        for (;;) {
          if (this.#stopped) return round;
          const cutoff = new Date(this.#now().getTime() - GRACE_MS).toISOString();
          const rows = await this.#d.tables[cache].deleteExpired(cutoff, this.#d.batchSize);
          round.batches++;
          if (rows > 0) {
            round.purged[cache] += rows;
            this.#d.onPurged?.(cache, rows);
          }
          if (rows < this.#d.batchSize) break;
          await yieldToEventLoop();
          // A long backlog: keep the lease (and stop when another process has it: it took over an expired lease).
          if (!(await this.#renew())) return round;
        }
      }
      return round;
    } finally {
      this.#running = false;
    }
  }

  #renew(): Promise<boolean> {
    const at = this.#now();
    return this.#d.lease.takeLease(LEASE, this.#holder, at.toISOString(), new Date(at.getTime() + this.#leaseMs).toISOString());
  }
}
