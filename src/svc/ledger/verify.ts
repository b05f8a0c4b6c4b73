/**
 * Verifies the whole ledger chain from the genesis hash: sequence continuity,
 * each prev_hash, each recomputed hash. Reports the first broken link.
 *
 * Large ledgers are verified in parallel: the chain up to the head read at
 * the start is split into one contiguous range per worker thread, each
 * worker reads and checks its range over its own connection, and the ranges
 * are stitched (range k's first prev_hash must equal range k−1's last hash;
 * the first range must start at the genesis hash). The first break reported
 * is the earliest one in chain order, exactly as the sequential walk would
 * report it. Events appended while verifying are not part of the run.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { type ChainBreak, type ChainReport, GENESIS_HASH } from '../../core/hash-chain.ts';
import type { DbTarget } from '../store/open-db.ts';
import type { LedgerRepository } from '../store/repositories/ledger.ts';
import { type RangeResult, verifyRange } from './verify-range.ts';

/** Below this many events a single pass is faster than starting workers. */
export const PARALLEL_MIN_EVENTS = 100_000;
const MAX_WORKERS = 8;

export interface LedgerVerifyReport extends ChainReport {
  duration_ms: number;
  first_bad_event_id?: string;
  /** How many ranges (worker threads) verified the chain; 1 = sequential. */
  workers: number;
}

export interface VerifyOptions {
  /** Where the ledger lives, so workers can open their own connections; absent: sequential. */
  target?: DbTarget;
  /** Worker threads (default: available cores, at most 8). */
  workers?: number;
  /** Ledgers shorter than this are verified in one pass (default PARALLEL_MIN_EVENTS). */
  parallelMinEvents?: number;
}

function runWorker(target: DbTarget, fromSeq: number, toSeq: number): Promise<RangeResult> {
  return new Promise((resolve, reject) => {
    // Only the connection fields cross the thread boundary (callers may pass richer objects).
    const { databaseUrl, stateDir, pgSchema, sqliteSynchronous } = target;
    const workerData = { target: { databaseUrl, stateDir, pgSchema, sqliteSynchronous }, fromSeq, toSeq };
    const worker = new Worker(new URL('./verify-worker.ts', import.meta.url), { workerData });
    worker.once('message', (m: { ok: true; result: RangeResult } | { ok: false; message: string }) => (m.ok ? resolve(m.result) : reject(new Error(`ledger verify worker: ${m.message}`))));
    worker.once('error', reject);
    worker.once('exit', (code) => (code === 0 ? undefined : reject(new Error(`ledger verify worker exited with code ${code}`))));
  });
}

/** A worker cannot reach an in-memory SQLite database. */
function parallelisable(target: DbTarget | undefined): target is DbTarget {
  return target !== undefined && target.databaseUrl !== 'sqlite::memory:';
}

export async function verifyLedger(repo: LedgerRepository, options: VerifyOptions = {}): Promise<LedgerVerifyReport> {
  const started = performance.now();
  const head = await repo.head();
  const headSeq = head?.seq ?? 0;
  const workers = Math.max(1, Math.min(options.workers ?? availableParallelism(), MAX_WORKERS));
  const parallel = parallelisable(options.target) && workers > 1 && headSeq >= (options.parallelMinEvents ?? PARALLEL_MIN_EVENTS);
  let ranges: RangeResult[];
  if (parallel) {
    const size = Math.ceil(headSeq / workers);
    const bounds = Array.from({ length: workers }, (_, k) => [k * size + 1, Math.min(headSeq, (k + 1) * size)] as const).filter(([a, b]) => a <= b);
    ranges = await Promise.all(bounds.map(([a, b]) => runWorker(options.target!, a, b)));
  } else {
    ranges = [await verifyRange(repo, 1, Number.MAX_SAFE_INTEGER)];
  }
  return { ...stitch(ranges), duration_ms: Math.round(performance.now() - started), workers: parallel ? ranges.length : 1 };
}

/** Joins range results in chain order into one report with the earliest break (as one sequential walk from seq 1 reports it). */
export function stitch(ranges: readonly RangeResult[]): Omit<LedgerVerifyReport, 'duration_ms' | 'workers'> {
  let expectedPrev = GENESIS_HASH;
  let expectedSeq = 1;
  let checked = 0;
  for (const r of ranges) {
    checked += r.checked;
    if (r.firstSeq === null) continue; // no rows in this range
    let link: ChainBreak | undefined;
    if (r.firstSeq !== expectedSeq) link = { kind: 'sequence_gap', position: r.firstSeq, expected: expectedSeq, found: r.firstSeq };
    else if (r.firstPrevHash !== expectedPrev) link = { kind: 'prev_hash_mismatch', position: r.firstSeq, expected: expectedPrev, found: r.firstPrevHash ?? '' };
    const firstBreak = link ?? r.firstBreak;
    if (firstBreak) {
      // headHash: the last hash that verified before the break, as a sequential walk reports it.
      const report: Omit<LedgerVerifyReport, 'duration_ms' | 'workers'> = { ok: false, checked, headHash: link ? expectedPrev : (r.lastHash ?? expectedPrev), firstBreak };
      const badId = link ? r.firstEventId : r.firstBadEventId;
      if (badId) report.first_bad_event_id = badId;
      return report;
    }
    expectedPrev = r.lastHash!;
    expectedSeq = r.lastSeq! + 1;
  }
  return { ok: true, checked, headHash: expectedPrev };
}
