/**
 * Verifies the whole ledger chain from the genesis hash: sequence continuity,
 * each prev_hash, each recomputed hash. Reports the first broken link.
 *
 * Large ledgers are verified in parallel: the chain up to the head read at
 * the start is cut into chunks of contiguous seqs that the calling thread
 * and worker threads (each over its own connection) claim one at a time from
 * a shared queue (verify-queue.ts), so a thread that starts late or runs on a
 * busy core simply takes fewer chunks. The chunks are stitched in chain order (chunk k's first
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
import { ChunkQueue } from './verify-queue.ts';
import type { WorkerData, WorkerReply, WorkerRequest } from './verify-worker.ts';

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
  /**
   * Start only once every worker is ready, and deal each thread's first chunk in order (the calling thread chunk 0,
   * worker i chunk i); the queue hands out the rest. Slower (the calling thread waits for the workers' start-up):
   * tests use it to know which thread verifies which chunk.
   */
  dealFirstChunks?: boolean;
  /** Filled in by a parallel run, for benchmarks and tests. */
  stats?: VerifyStats;
}

export interface VerifyStats {
  /** CPU seconds each thread spent on its chunks (the calling thread first, then each worker). */
  threadCpuSeconds: number[];
  /** Which thread verified each chunk the report covers (0: the calling thread when it verifies, then the workers). */
  chunkThreads?: number[];
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
    const { ranges, threadsUsed, threadCpuSeconds, chunkThreads } = await verifyChunks(reader, options.target!, chunks, threads, callerThread, options.dealFirstChunks ?? false);
    if (options.stats) Object.assign(options.stats, { threadCpuSeconds, chunkThreads });
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
 * Verifies the chunks with the calling thread and `threads − 1` workers claiming from one shared queue
 * (verify-queue.ts): each thread takes its next chunk itself the moment it finishes one. Once a chunk holds a break,
 * later chunks are not started (the earliest break is all the report names) and the result ends there.
 */
async function verifyChunks(repo: LedgerRepository, target: DbTarget, chunks: ReadonlyArray<readonly [number, number]>, threads: number, callerThread: boolean, dealt: boolean): Promise<{ ranges: RangeResult[]; threadsUsed: number; threadCpuSeconds: number[]; chunkThreads: number[] }> {
  const ranges: RangeResult[] = [];
  const chunkThreads: number[] = [];
  const workerCount = callerThread ? Math.min(threads - 1, chunks.length - 1) : Math.min(threads, chunks.length);
  // Dealt: thread i (the calling thread first) verifies chunk i first; the queue hands out the rest.
  const queue = new ChunkQueue(chunks.length, dealt ? workerCount + (callerThread ? 1 : 0) : 0);
  let callerCpu = 0;
  let done = false;
  let finish!: () => void;
  let fail!: (err: unknown) => void;
  const finished = new Promise<void>((resolve, reject) => {
    finish = resolve;
    fail = reject;
  });
  // Done when every chunk the report needs has its result (a worker may still be on a chunk past a break).
  const settle = (k: number, r: RangeResult, thread: number) => {
    ranges[k] = r;
    chunkThreads[k] = thread;
    if (r.firstBreak) queue.breakAt(k);
    for (let i = 0; i < queue.wanted; i++) if (ranges[i] === undefined) return;
    done = true;
    finish();
  };
  const workers = Array.from({ length: workerCount }, () => new VerifyWorker(target, queue, chunks, dealt));
  workers.forEach((w, i) => {
    const thread = i + (callerThread ? 1 : 0);
    w.worker.on('message', (m: WorkerReply) => {
      if (m.kind === 'ready') {
        w.state = 'running';
        if (dealt && workers.every((x) => x.state !== 'starting')) startDealt();
      } else if (m.kind === 'result') {
        w.cpuSeconds += m.cpuSeconds;
        settle(m.chunk, m.result, thread);
      } else if (m.kind === 'idle') w.state = 'idle';
      else fail(new Error(`ledger verify worker: ${m.message}`));
    });
    w.worker.once('error', (err) => fail(new Error(`ledger verify worker: ${err.message}`)));
    w.worker.once('exit', (code) => !done && w.state !== 'idle' && fail(new Error(`ledger verify worker exited with code ${code}`)));
  });
  // The calling thread verifies too: it needs no start-up, so it works alone until the workers are ready.
  const callerRun = async (first: number | undefined) => {
    for (let k = first ?? queue.claim(); k !== undefined; k = queue.claim()) {
      if (!queue.wants(k)) continue;
      const cpu = process.threadCpuUsage();
      const range = await verifyRange(repo, chunks[k]![0], chunks[k]![1]);
      const used = process.threadCpuUsage(cpu);
      callerCpu += (used.user + used.system) / 1e6;
      settle(k, range, 0);
    }
  };
  const startDealt = () => {
    workers.forEach((w, i) => w.worker.postMessage({ kind: 'start', first: i + (callerThread ? 1 : 0) } satisfies WorkerRequest));
    if (callerThread) callerRun(0).catch(fail);
  };
  if (dealt && workers.length === 0) startDealt();
  else if (callerThread && !dealt) callerRun(undefined).catch(fail);
  try {
    if (chunks.length > 0) await finished;
  } finally {
    done = true;
    // Idle workers close their connections and exit; those still starting or on a chunk past a break are stopped.
    await Promise.all(workers.map((w) => w.stop()));
  }
  const served = new Set(chunkThreads.slice(0, queue.wanted));
  const threadCpuSeconds = [...(callerThread ? [callerCpu] : []), ...workers.map((w) => w.cpuSeconds)];
  return { ranges: ranges.slice(0, queue.wanted), threadsUsed: served.size, threadCpuSeconds, chunkThreads: chunkThreads.slice(0, queue.wanted) };
}

/** A verify worker thread (src/svc/ledger/verify-worker.ts) and where it is. */
class VerifyWorker {
  readonly worker: Worker;
  state: 'starting' | 'running' | 'idle' = 'starting';
  cpuSeconds = 0;

  constructor(target: DbTarget, queue: ChunkQueue, chunks: ReadonlyArray<readonly [number, number]>, dealt: boolean) {
    // Only the connection fields cross the thread boundary (callers may pass richer objects).
    const { databaseUrl, stateDir, pgSchema, sqliteSynchronous } = target;
    const workerData: WorkerData = { target: { databaseUrl, stateDir, pgSchema, sqliteSynchronous }, queue: queue.buffer, chunks, dealt };
    this.worker = new Worker(new URL('./verify-worker.ts', import.meta.url), { workerData });
  }

  async stop(): Promise<void> {
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()));
    if (this.state === 'idle') this.worker.postMessage({ kind: 'close' } satisfies WorkerRequest);
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
