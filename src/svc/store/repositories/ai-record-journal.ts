/**
 * The AI record journal (docs/decisions/141). On SQLite an AI request's
 * work unit, plan and compute manifest are committed as ONE journal row, in
 * the group-commit transaction that also holds its ledger events (so they
 * are durable before the answer is acknowledged, docs/decisions/067), and
 * are moved into `work_units`, `plans` and `ai_manifests` later, in batches:
 *
 * - when enough rows are pending, or shortly after the last one (a timer);
 * - before anything reads or updates those tables (`settleAiRecords`, called
 *   by their repositories), so a reader never misses an acknowledged record;
 * - when the store closes or opens (rows left by a crash).
 *
 * Why: a commit writes every page it touched. One sequential request touched
 * three tables and eight indexes for these three rows; one journal row in a
 * table without secondary indexes touches one or two pages. The batches
 * share those pages among many rows and commit without an fsync (the rows
 * are already durable in the journal, and the journal rows are deleted in the
 * same transaction: a crash can only roll the whole batch back).
 *
 * PostgreSQL writes the three rows directly (no journal table there).
 */
import type { AiComputeManifest } from '../../ai/gateway/ports.ts';
import type { Plan } from '../../plans/plan.ts';
import type { WorkUnitRecord } from '../../work-units/work-unit.ts';
import type { Db } from '../db.ts';
import { SqliteDb, isSqliteTransaction } from '../sqlite-db.ts';
import { AiManifestRepository } from './ai-manifests.ts';
import { PlanRepository } from './plans.ts';
import { WorkUnitRepository } from './work-units.ts';

/** The three records of one AI request. */
export interface AiRecordSet {
  work_unit: WorkUnitRecord;
  plan: Plan;
  plan_created_by: string;
  manifest: AiComputeManifest;
}

/** Rows moved per transaction in the background (a reader's settle moves everything). */
const BATCH = 256;
/** Pending rows that start a move at once; below that, the idle timer moves them. */
const MOVE_AT = 256;
const IDLE_MS = 200;

/** Writes the three records directly (PostgreSQL, stored work units, and the journal's moves). */
export async function insertAiRecords(tx: Db, r: AiRecordSet): Promise<void> {
  await new WorkUnitRepository(tx).insert(r.work_unit);
  await new PlanRepository(tx).insert(r.plan, r.plan_created_by);
  await new AiManifestRepository(tx).insert(r.manifest);
}

/**
 * Moves up to `limit` journal rows into their tables inside `tx`; returns how
 * many it took. If a row cannot be written (it would have failed its request
 * before the journal), the batch is redone row by row under savepoints: that
 * row is kept with its error in `failed` and no longer blocks the others or
 * any reader.
 */
async function moveIn(tx: Db, limit: number): Promise<number> {
  const rows = await tx.all<{ seq: number; body: string }>('SELECT seq, body FROM ai_record_journal WHERE failed IS NULL ORDER BY seq LIMIT $1', [limit]);
  if (rows.length === 0) return 0;
  const records = rows.map((row) => JSON.parse(row.body) as AiRecordSet);
  await tx.exec('SAVEPOINT ai_records');
  try {
    for (const r of records) await insertAiRecords(tx, r);
    await tx.exec('RELEASE ai_records');
  } catch {
    await tx.exec('ROLLBACK TO ai_records');
    await tx.exec('RELEASE ai_records');
    for (let i = 0; i < rows.length; i++) {
      await tx.exec('SAVEPOINT ai_record');
      try {
        await insertAiRecords(tx, records[i]!);
        await tx.exec('RELEASE ai_record');
      } catch (err) {
        await tx.exec('ROLLBACK TO ai_record');
        await tx.exec('RELEASE ai_record');
        await tx.run('UPDATE ai_record_journal SET failed = $2 WHERE seq = $1', [rows[i]!.seq, String(err instanceof Error ? err.message : err).slice(0, 500)]);
      }
    }
  }
  await tx.run('DELETE FROM ai_record_journal WHERE seq <= $1 AND failed IS NULL', [rows[rows.length - 1]!.seq]);
  return rows.length;
}

async function moveBatch(db: SqliteDb, limit: number): Promise<number> {
  return db.transactionWithoutSync((tx) => moveIn(tx, limit));
}

/**
 * Makes every journalled AI record visible in `work_units`, `plans` and
 * `ai_manifests`. Repositories call it before reading or updating those
 * tables; inside a transaction the rows move in that transaction.
 * A no-op on PostgreSQL and when the journal is empty (one indexed probe).
 */
export async function settleAiRecords(db: Db): Promise<void> {
  if (db.dialect !== 'sqlite') return;
  if (isSqliteTransaction(db)) {
    while ((await moveIn(db, BATCH)) > 0);
    return;
  }
  if (!(db instanceof SqliteDb)) return;
  const pending = await db.get('SELECT seq FROM ai_record_journal WHERE failed IS NULL LIMIT 1');
  if (!pending) return;
  while ((await moveBatch(db, BATCH)) > 0);
}

/** The write side: journals on SQLite, writes directly on PostgreSQL; moves journalled rows in the background. */
export class AiRecordJournal {
  readonly #db: Db;
  readonly #journalled: boolean;
  #pending = 0;
  #timer: NodeJS.Timeout | undefined;
  #moving: Promise<void> | undefined;
  #closed = false;

  constructor(db: Db) {
    this.#db = db;
    this.#journalled = db instanceof SqliteDb;
  }

  /** Writes the records inside the caller's (group-commit) transaction. */
  async write(tx: Db, records: AiRecordSet): Promise<void> {
    if (!this.#journalled) return insertAiRecords(tx, records);
    await tx.run('INSERT INTO ai_record_journal (body) VALUES ($1)', [JSON.stringify(records)]);
  }

  /** Called after the transaction that holds `write`'s rows committed. */
  committed(): void {
    if (!this.#journalled || this.#closed) return;
    this.#pending++;
    if (this.#pending >= MOVE_AT) this.#startMove();
    else this.#timer ??= setTimeout(() => this.#startMove(), IDLE_MS).unref();
  }

  #startMove(): void {
    if (this.#timer) {
      clearTimeout(this.#timer);
      this.#timer = undefined;
    }
    if (this.#moving || this.#closed) return;
    this.#pending = 0;
    this.#moving = this.#moveAll().finally(() => {
      this.#moving = undefined;
    });
  }

  async #moveAll(): Promise<void> {
    try {
      // One batch per turn of the event loop (requests keep being served between batches), until a batch
      // is not full: rows journalled meanwhile wait for the next move rather than trickle over one by one.
      while ((await moveBatch(this.#db as SqliteDb, BATCH)) === BATCH) await new Promise<void>((r) => setImmediate(r));
    } catch {
      // Left in the journal: the next move, reader or start moves them.
    }
  }

  /** Moves what is pending and stops the timer (store close). */
  async close(): Promise<void> {
    this.#closed = true;
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = undefined;
    await this.#moving;
    if (this.#journalled) await settleAiRecords(this.#db).catch(() => undefined);
  }
}
