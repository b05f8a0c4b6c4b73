/**
 * Verifies the whole ledger chain from the genesis hash: sequence continuity,
 * each prev_hash, each recomputed hash. Reports the first broken link.
 *
 * Large ledgers are verified in parallel: the chain up to the head read at
 * the start is cut into chunks of contiguous seqs, handed out one at a time
 * to the calling thread and to worker threads (each over its own
 * connection), so a thread that starts late or runs on a busy core simply
 * takes fewer chunks. The chunks are stitched in chain order (chunk k's first
 * prev_hash must equal chunk k−1's last hash; the first must start at the
 * genesis hash). The first break reported is the earliest one in chain order,
 * exactly as the sequential walk would report it. Events appended while
 * verifying are not part of the run.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { type ChainBreak, type ChainReport, GENESIS_HASH } from '../../core/hash-chain.ts';
import { type DbTarget, openDb } from '../store/open-db.ts';
import { LedgerRepository } from '../store/repositories/ledger.ts';
import { type RangeResult, VERIFY_MMAP_BYTES, verifyRange } from './verify-range.ts';
import type { WorkerReply, WorkerRequest } from './verify-worker.ts';

/** Below this many events a single pass is faster than starting workers. */
export const PARALLEL_MIN_EVENTS = 100_000;
const MAX_WORKERS = 8;
/** Events per chunk: enough to dwarf a message round trip, few enough that threads finish together. */
const CHUNK_EVENTS = 50_000;
const MIN_CHUNK_EVENTS = 5_000;

export interface LedgerVerifyReport extends ChainReport {
  duration_ms: number;
  first_bad_event_id?: string;
  /** How many threads verified the chain (the calling thread and its worker threads); 1 = sequential. */
  workers: number;
}

export interface VerifyOptions {
  /** Where the ledger lives, so workers can open their own connections; absent: sequential. */
  target?: DbTarget;
  /** Threads, the calling one included (default: available cores, at most 8). */
  workers?: number;
  /** Ledgers shorter than this are verified in one pass (default PARALLEL_MIN_EVENTS). */
  parallelMinEvents?: number;
  /** Events per chunk handed to a thread (default: 50,000, shrinking to 5,000 near the end; tests fix it to put boundaries where they want). */
  chunkEvents?: number;
  /** Whether the calling thread verifies chunks too (default true); false: worker threads only. */
  callerThread?: boolean;
  /** Filled in by a parallel run, for benchmarks: CPU seconds each thread spent on its chunks (the calling thread first). */
  stats?: VerifyStats;
}

export interface VerifyStats {
  threadCpuSeconds: number[];
}

/** A worker cannot reach an in-memory SQLite database. */
function parallelisable(target: DbTarget | undefined): target is DbTarget {
  return target !== undefined && target.databaseUrl !== 'sqlite::memory:';
}

/** A SQLite database in a file (the state dir's, or `sqlite:<path>`): one another connection can open. */
function sqliteFile(target: DbTarget | undefined): target is DbTarget {
  const url = target?.databaseUrl;
  return target !== undefined && (!url || (url.startsWith('sqlite:') && url !== 'sqlite::memory:'));
}

export async function verifyLedger(repo: LedgerRepository, options: VerifyOptions = {}): Promise<LedgerVerifyReport> {
  const started = performance.now();
  const head = await repo.head();
  const headSeq = head?.seq ?? 0;
  const threads = Math.max(1, Math.min(options.workers ?? availableParallelism(), MAX_WORKERS));
  const parallel = parallelisable(options.target) && threads > 1 && headSeq >= (options.parallelMinEvents ?? PARALLEL_MIN_EVENTS);
  const callerThread = !parallel || (options.callerThread ?? true);
  // On a SQLite file the calling thread reads through a connection of its own, memory-mapped like the workers'.
  const own = callerThread && sqliteFile(options.target) ? openDb(options.target, { sqliteMmapBytes: VERIFY_MMAP_BYTES }) : undefined;
  const reader = own === undefined ? repo : new LedgerRepository(own);
  try {
    if (!parallel) {
      const range = await verifyRange(reader, 1, Number.MAX_SAFE_INTEGER);
      return { ...stitch([range]), duration_ms: Math.round(performance.now() - started), workers: 1 };
    }
    const chunks = options.chunkEvents === undefined ? guidedChunks(headSeq, threads) : fixedChunks(headSeq, Math.max(1, options.chunkEvents));
    const { ranges, threadsUsed, threadCpuSeconds } = await verifyChunks(reader, options.target!, chunks, threads, callerThread);
    if (options.stats) options.stats.threadCpuSeconds = threadCpuSeconds;
    return { ...stitch(ranges), duration_ms: Math.round(performance.now() - started), workers: threadsUsed };
  } finally {
    await own?.close();
  }
}

function fixedChunks(headSeq: number, size: number): Array<readonly [number, number]> {
  return Array.from({ length: Math.ceil(headSeq / size) }, (_, k) => [k * size + 1, Math.min(headSeq, (k + 1) * size)] as const);
}

/**
 * Chunks of CHUNK_EVENTS that shrink towards the end (a share of what is left, at least MIN_CHUNK_EVENTS), so the
 * threads run out of work at nearly the same moment instead of one finishing a whole chunk alone.
 */
export function guidedChunks(headSeq: number, threads: number): Array<readonly [number, number]> {
  const chunks: Array<readonly [number, number]> = [];
  for (let from = 1; from <= headSeq; ) {
    const size = Math.max(MIN_CHUNK_EVENTS, Math.min(CHUNK_EVENTS, Math.ceil((headSeq - from + 1) / (2 * threads))));
    const to = Math.min(headSeq, from + size - 1);
    chunks.push([from, to]);
    from = to + 1;
  }
  return chunks;
}

/**
 * Verifies the chunks with the calling thread and `threads − 1` workers pulling from one queue. Once a chunk holds a
 * break, later chunks are not started (the earliest break is all the report names) and the result ends there.
 */
async function verifyChunks(repo: LedgerRepository, target: DbTarget, chunks: ReadonlyArray<readonly [number, number]>, threads: number, callerThread: boolean): Promise<{ ranges: RangeResult[]; threadsUsed: number; threadCpuSeconds: number[] }> {
  const ranges: RangeResult[] = [];
  let callerCpu = 0;
  let next = 0;
  let inFlight = 0;
  let stopAfter = Number.POSITIVE_INFINITY;
  let threadsUsed = callerThread ? 1 : 0;
  let finish!: () => void;
  let fail!: (err: unknown) => void;
  const finished = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  const exhausted = () => next >= chunks.length || next > stopAfter;
  const take = (): number | undefined => {
    if (exhausted()) return undefined;
    inFlight++;
    return next++;
  };
  const settle = (k: number, r: RangeResult) => {
    ranges[k] = r;
    if (r.firstBreak) stopAfter = Math.min(stopAfter, k);
    inFlight--;
    if (inFlight === 0 && exhausted()) finish();
  };
  const workers = Array.from({ length: callerThread ? Math.min(threads - 1, chunks.length - 1) : Math.min(threads, chunks.length) }, () => new VerifyWorker(target));
  for (const w of workers) {
    const feed = () => {
      const k = take();
      if (k === undefined) return;
      if (!w.served) {
        w.served = true;
        threadsUsed++;
      }
      w.chunk = k;
      w.worker.postMessage({ kind: 'verify', fromSeq: chunks[k]![0], toSeq: chunks[k]![1] } satisfies WorkerRequest);
    };
    w.worker.on('message', (m: WorkerReply) => {
      if (m.kind === 'ready') {
        w.ready = true;
        return feed();
      }
      if (m.kind === 'error') return fail(new Error(`ledger verify worker: ${m.message}`));
      const k = w.chunk!;
      w.chunk = undefined;
      w.cpuSeconds += m.cpuSeconds;
      settle(k, m.result);
      feed();
    });
    w.worker.once('error', (err) => fail(new Error(`ledger verify worker: ${err.message}`)));
    w.worker.once('exit', (code) => w.chunk !== undefined && fail(new Error(`ledger verify worker exited with code ${code}`)));
  }
  // The calling thread takes chunks too: it needs no start-up, and between its pages it hands chunks to workers.
  if (callerThread) {
    void (async () => {
      for (let k = take(); k !== undefined; k = take()) {
        const cpu = process.threadCpuUsage();
        const range = await verifyRange(repo, chunks[k]![0], chunks[k]![1]);
        const used = process.threadCpuUsage(cpu);
        callerCpu += (used.user + used.system) / 1e6;
        settle(k, range);
      }
    })().catch(fail);
  }
  try {
    if (chunks.length > 0) await finished;
  } finally {
    // Workers still starting are stopped; the others close their connections and exit.
    await Promise.all(workers.map((w) => w.stop()));
  }
  const threadCpuSeconds = [...(callerThread ? [callerCpu] : []), ...workers.filter((w) => w.served).map((w) => w.cpuSeconds)];
  return { ranges: ranges.slice(0, Math.min(chunks.length, stopAfter + 1)), threadsUsed, threadCpuSeconds };
}

/** A verify worker thread (src/svc/ledger/verify-worker.ts) and where it is in the queue. */
class VerifyWorker {
  readonly worker: Worker;
  ready = false;
  served = false;
  chunk: number | undefined;
  cpuSeconds = 0;

  constructor(target: DbTarget) {
    // Only the connection fields cross the thread boundary (callers may pass richer objects).
    const { databaseUrl, stateDir, pgSchema, sqliteSynchronous } = target;
    this.worker = new Worker(new URL('./verify-worker.ts', import.meta.url), { workerData: { target: { databaseUrl, stateDir, pgSchema, sqliteSynchronous } } });
  }

  async stop(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    if (this.ready && this.chunk === undefined) this.worker.postMessage({ kind: 'close' } satisfies WorkerRequest);
    else await this.worker.terminate();
    await exited;
  }
}

/** Joins range results in chain order into one report with the earliest break (as one sequential walk from seq 1 reports it). */
export function stitch(ranges: readonly RangeResult[]): Omit<LedgerVerifyReport, 'duration_ms' | 'workers'> {
  let expectedPrev = GENESIS_HASH;
  let expectedSeq = 1;
  let checked = 0;
  for (const r of ranges) {
    if (r.firstSeq === null) continue; // no rows in this range
    let link: ChainBreak | undefined;
    if (r.firstSeq !== expectedSeq) link = { kind: 'sequence_gap', position: r.firstSeq, expected: expectedSeq, found: r.firstSeq };
    else if (r.firstPrevHash !== expectedPrev) link = { kind: 'prev_hash_mismatch', position: r.firstSeq, expected: expectedPrev, found: r.firstPrevHash ?? '' };
    // A walk that breaks on a range's first row has checked that row and no further.
    checked += link ? 1 : r.checked;
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
