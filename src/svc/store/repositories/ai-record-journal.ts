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
 * A row that cannot be moved (it would have failed its request before the
 * journal) is set aside with its error: the journal's watcher hears of it
 * (the app counts it as a manifest write failure, a critical alert, and logs
 * it), and `status()` counts it for `/metrics` and `/readyz`.
 *
 * PostgreSQL writes the three rows directly (no journal table there).
 */
import type { AiComputeManifest } from '../../ai/gateway/ports.ts';
import type { Plan } from '../../plans/plan.ts';
import type { WorkUnitRecord } from '../../work-units/work-unit.ts';
import type { Db } from '../db.ts';
import { SqliteDb, isSqliteTransaction, sqliteDatabaseOf } from '../sqlite-db.ts';
import { AiManifestRepository } from './ai-manifests.ts';
import { PlanRepository } from './plans.ts';
import { WorkUnitRepository } from './work-units.ts';

/** The three records of one AI request. */
export interface AiRecordSet {
  work_unit: WorkUnitRecord;
  plan: Plan;
  plan_created_by: string;
  /** The `plan.created` event committed with these records, which carries the plan: the plan row points at it instead of repeating the body (docs/decisions/172). Absent in rows journalled before. */
  plan_event_id?: string;
  manifest: AiComputeManifest;
}

/** A journal row set aside because its records could not be written. */
export interface AiRecordFailure {
  /** The row's `seq` in `ai_record_journal` (the row stays there, with `failed` set). */
  seq: number;
  /** The database's error (constraint names; never the records' content). */
  error: string;
}

/** Who hears about the journal's trouble (the app: metrics and the operational log). */
export interface AiRecordJournalWatcher {
  /** A row was set aside. Called when it is set aside: if the transaction that did so rolls back, it is set aside, and reported, again. */
  rowSetAside(failure: AiRecordFailure): void;
  /** A background move failed as a whole (e.g. the disk is full); its rows stay in the journal for the next move or reader. */
  moveFailed(error: Error): void;
}

/** Journal row counts: `pending` wait to be moved, `failed` were set aside. */
export interface AiRecordJournalStatus {
  pending: number;
  failed: number;
}

/** One watcher per database (a reader's settle finds it through the database its transaction belongs to). */
const watchers = new WeakMap<SqliteDb, AiRecordJournalWatcher>();

/** Rows moved per transaction in the background (a reader's settle moves everything). */
const BATCH = 256;
/** Pending rows that start a move at once; below that, the idle timer moves them. */
const MOVE_AT = 256;
const IDLE_MS = 200;

/** Writes the three records directly (PostgreSQL, stored work units, and the journal's moves). */
export async function insertAiRecords(tx: Db, r: AiRecordSet): Promise<void> {
  await new WorkUnitRepository(tx).insert(r.work_unit);
  await new PlanRepository(tx).insert(r.plan, r.plan_created_by, r.plan_event_id);
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
        const failure = { seq: rows[i]!.seq, error: String(err instanceof Error ? err.message : err).slice(0, 500) };
        await tx.run('UPDATE ai_record_journal SET failed = $2 WHERE seq = $1', [failure.seq, failure.error]);
        const root = sqliteDatabaseOf(tx);
        if (root) watchers.get(root)?.rowSetAside(failure);
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

  /** Tells `watcher` about rows set aside and failed background moves (replaces an earlier watcher). */
  watch(watcher: AiRecordJournalWatcher): void {
    if (this.#db instanceof SqliteDb) watchers.set(this.#db, watcher);
  }

  /** Rows waiting in the journal and rows set aside (both 0 on PostgreSQL, which has no journal). */
  async status(): Promise<AiRecordJournalStatus> {
    if (!this.#journalled) return { pending: 0, failed: 0 };
    const row = await this.#db.get<{ pending: number | null; failed: number | null }>(
      'SELECT SUM(CASE WHEN failed IS NULL THEN 1 ELSE 0 END) AS pending, SUM(CASE WHEN failed IS NULL THEN 0 ELSE 1 END) AS failed FROM ai_record_journal',
    );
    return { pending: Number(row?.pending ?? 0), failed: Number(row?.failed ?? 0) };
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
    } catch (err) {
      // Left in the journal: the next move, reader or start moves them.
      if (!this.#closed) watchers.get(this.#db as SqliteDb)?.moveFailed(err instanceof Error ? err : new Error(String(err)));
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
