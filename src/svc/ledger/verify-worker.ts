/**
 * Worker thread for parallel ledger verification: opens its own connection
 * to the same database (SQLite in WAL mode and PostgreSQL both serve
 * concurrent readers), says it is ready, then claims chunks from the queue it
 * shares with the calling thread and the other workers
 * (src/svc/ledger/verify-queue.ts) and verifies them one after the other,
 * posting each result, until none is left; then it waits to be told to close.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type DbTarget, openSqliteDb } from '../store/open-sqlite.ts';
import { LedgerRepository } from '../store/repositories/ledger.ts';
import { ChunkQueue } from './verify-queue.ts';
import { type RangeResult, VERIFY_MMAP_BYTES, verifyRange } from './verify-range.ts';

export interface WorkerData {
  target: DbTarget;
  /** The shared queue (`ChunkQueue.buffer`) and the chunks it indexes, `[fromSeq, toSeq]` each. */
  queue: SharedArrayBuffer;
  chunks: ReadonlyArray<readonly [number, number]>;
  /** Wait for a `start` message naming this worker's first chunk before claiming any (`VerifyOptions.dealFirstChunks`). */
  dealt: boolean;
}

export type WorkerRequest = { kind: 'start'; first: number } | { kind: 'close' };
/** `cpuSeconds`: this thread's CPU time for the chunk (VerifyOptions.stats). `idle`: the queue is empty, nothing is running. */
export type WorkerReply = { kind: 'ready' } | { kind: 'result'; chunk: number; result: RangeResult; cpuSeconds: number } | { kind: 'idle' } | { kind: 'error'; message: string };

if (parentPort) {
  const port = parentPort;
  const post = (m: WorkerReply) => port.postMessage(m);
  const data = workerData as WorkerData;
  const queue = new ChunkQueue(data.chunks.length, 0, data.queue);
  // On SQLite the PostgreSQL driver is never loaded (a faster start: the calling thread verifies alone until then).
  const db = openSqliteDb(data.target, { sqliteMmapBytes: VERIFY_MMAP_BYTES }) ?? (await import('../store/open-db.ts')).openDb(data.target);
  const repo = new LedgerRepository(db);
  const run = async (first: number | undefined) => {
    for (let k = first ?? queue.claim(); k !== undefined; k = queue.claim()) {
      if (!queue.wants(k)) continue; // a dealt chunk after a break already found
      const cpu = process.threadCpuUsage();
      const result = await verifyRange(repo, data.chunks[k]![0], data.chunks[k]![1]);
      if (result.firstBreak) queue.breakAt(k);
      const used = process.threadCpuUsage(cpu);
      post({ kind: 'result', chunk: k, result, cpuSeconds: (used.user + used.system) / 1e6 });
    }
    post({ kind: 'idle' });
  };
  const fail = (err: unknown) => post({ kind: 'error', message: (err as Error).message });
  port.on('message', (m: WorkerRequest) => {
    if (m.kind === 'start') return void run(m.first).catch(fail);
    port.close();
    void db.close();
  });
  post({ kind: 'ready' });
  if (!data.dealt) void run(undefined).catch(fail);
}
