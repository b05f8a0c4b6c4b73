/**
 * Worker thread for parallel ledger verification: opens its own connection
 * to the same database (SQLite in WAL mode and PostgreSQL both serve
 * concurrent readers), says it is ready, then verifies the chunks it is
 * handed one at a time (src/svc/ledger/verify.ts) until told to close.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { type DbTarget, openSqliteDb } from '../store/open-sqlite.ts';
import { LedgerRepository } from '../store/repositories/ledger.ts';
import { type RangeResult, VERIFY_MMAP_BYTES, verifyRange } from './verify-range.ts';

export type WorkerRequest = { kind: 'verify'; fromSeq: number; toSeq: number } | { kind: 'close' };
/** `cpuSeconds`: this thread's CPU time for the chunk (VerifyOptions.stats). */
export type WorkerReply = { kind: 'ready' } | { kind: 'result'; result: RangeResult; cpuSeconds: number } | { kind: 'error'; message: string };

if (parentPort) {
  const port = parentPort;
  const post = (m: WorkerReply) => port.postMessage(m);
  const target = (workerData as { target: DbTarget }).target;
  // On SQLite the PostgreSQL driver is never loaded (a faster start: the calling thread verifies alone until then).
  const db = openSqliteDb(target, { sqliteMmapBytes: VERIFY_MMAP_BYTES }) ?? (await import('../store/open-db.ts')).openDb(target);
  const repo = new LedgerRepository(db);
  port.on('message', (m: WorkerRequest) => {
    if (m.kind === 'close') {
      port.close();
      void db.close();
      return;
    }
    const cpu = process.threadCpuUsage();
    verifyRange(repo, m.fromSeq, m.toSeq).then(
      (result) => {
        const used = process.threadCpuUsage(cpu);
        post({ kind: 'result', result, cpuSeconds: (used.user + used.system) / 1e6 });
      },
      (err: unknown) => post({ kind: 'error', message: (err as Error).message }),
    );
  });
  post({ kind: 'ready' });
}
