/**
 * Worker thread for parallel ledger verification: opens its own connection
 * to the same database (SQLite in WAL mode and PostgreSQL both serve
 * concurrent readers), verifies one range, posts the result, exits.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDb, type DbTarget } from '../store/open-db.ts';
import { LedgerRepository } from '../store/repositories/ledger.ts';
import { verifyRange } from './verify-range.ts';

const { target, fromSeq, toSeq } = workerData as { target: DbTarget; fromSeq: number; toSeq: number };
const db = openDb(target);
try {
  parentPort!.postMessage({ ok: true, result: await verifyRange(new LedgerRepository(db), fromSeq, toSeq) });
} catch (err) {
  parentPort!.postMessage({ ok: false, message: (err as Error).message });
} finally {
  await db.close();
}
