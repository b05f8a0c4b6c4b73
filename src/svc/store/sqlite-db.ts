/**
 * SQLite driver on `node:sqlite` (built into Node 24; no native addon).
 * WAL journal with synchronous=FULL by default (a committed transaction
 * survives power loss; `normal` survives process crashes only:
 * docs/decisions/003-sqlite-durability.md), foreign keys on.
 *
 * `node:sqlite` is synchronous, so every statement runs on one connection in
 * order. A transaction holds an async mutex for its whole duration so that a
 * statement from a concurrent request never runs inside someone else's
 * transaction.
 *
 * The WAL file is given back when writes stop (decision 174): SQLite's automatic
 * checkpoint (every ~1,000 pages, 4 MiB) copies the WAL into the database but
 * leaves the file at its largest size, so a server that ingested anything kept
 * 4 MiB or more of stale WAL on disk for ever. After `idleCheckpointMs` without
 * a write this connection runs a TRUNCATE checkpoint, and `journal_size_limit`
 * bounds what a checkpoint during a long burst leaves behind.
 */
import { statSync } from 'node:fs';
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { Db, SqlValue } from './db.ts';

type Release = () => void;

const BUSY_TIMEOUT_MS = 5000;
/** Writes must have stopped this long before the WAL file is truncated (an ingest burst has ended). */
export const IDLE_CHECKPOINT_MS = 1000;
/** Idle checkpoints retried (1, 2, 4 … × the idle time) while a reader holds an old snapshot, before waiting for the next write. */
const IDLE_CHECKPOINT_BUSY_RETRIES = 4;
/**
 * What a checkpoint during a long write burst may leave of the WAL file (SQLite truncates it to this after a
 * checkpoint that restarts it): 4 MiB, the size of the automatic checkpoint's 1,000 pages, so a steady burst reuses
 * its WAL file instead of growing and truncating it each time, and a WAL that grew while a long reader blocked
 * checkpoints (ledger verify) does not keep that size.
 */
const JOURNAL_SIZE_LIMIT_BYTES = 4 * 1024 * 1024;

/** Marks the `Db` handed to a transaction's callback (statements run directly, inside the held transaction). */
const IN_TRANSACTION = Symbol('sqlite transaction');

/** The database a transaction's `tx` belongs to. */
const OWNER = Symbol('sqlite transaction owner');

/** True for the `tx` a SQLite `transaction()` callback receives. */
export function isSqliteTransaction(db: Db): boolean {
  return (db as { [IN_TRANSACTION]?: boolean })[IN_TRANSACTION] === true;
}

/** The SQLite database `db` is, or whose transaction it is; undefined for any other `Db`. */
export function sqliteDatabaseOf(db: Db): SqliteDb | undefined {
  if (db instanceof SqliteDb) return db;
  return (db as { [OWNER]?: SqliteDb })[OWNER];
}

class Mutex {
  #tail: Promise<void> = Promise.resolve();
  lock(): Promise<Release> {
    let release!: Release;
    const next = new Promise<void>((r) => (release = r));
    const prev = this.#tail;
    this.#tail = prev.then(() => next);
    return prev.then(() => release);
  }
}

type Bindable = string | number | bigint | null | Uint8Array;

/**
 * A statement with its `$n` placeholders turned into anonymous `?`, and the
 * parameter index each `?` takes, in order (a `$n` used twice is bound twice).
 *
 * Why not SQLite's numbered `?n`: node:sqlite binds positional arguments by
 * asking SQLite for each parameter's name, a linear scan of the statement's
 * parameters, so a statement with n numbered parameters costs O(n²) to bind.
 * A 128-row pack index INSERT (899 parameters) took 1.6–2.0 ms to bind and
 * run with `?n` against 0.19 ms with `?` (measured; decision 179).
 */
interface Translated {
  sql: string;
  /** `order[k]` = index into the caller's params of the k-th `?`. */
  order: number[];
}

function translate(sql: string): Translated {
  const order: number[] = [];
  const text = sql.replace(/\$(\d+)/g, (_, n: string) => {
    order.push(Number(n) - 1);
    return '?';
  });
  return { sql: text, order };
}

/** The caller's params laid out in the order the statement's `?` placeholders take them. */
function bindable(order: readonly number[], params: readonly SqlValue[]): Bindable[] {
  const out = new Array<Bindable>(order.length);
  for (let k = 0; k < order.length; k++) out[k] = params[order[k]!] as Bindable;
  return out;
}

interface Prepared {
  stmt: StatementSync;
  order: number[];
}

export class SqliteDb implements Db {
  readonly dialect = 'sqlite' as const;
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, Prepared>();
  readonly #arrayStatements = new Map<string, Prepared>();
  readonly #mutex = new Mutex();
  readonly #sync: 'FULL' | 'NORMAL';
  readonly #walPath: string | undefined;
  readonly #idleCheckpointMs: number;
  #lastWriteAt = 0;
  #checkpointTimer: NodeJS.Timeout | undefined;
  /** Idle checkpoints that found a reader in the way since the last write (retried a few times, then left to the next write). */
  #busyRetries = 0;

  /**
   * `mmapBytes`: read the first that many bytes of the file through a memory map instead of a read system call per
   * page (`PRAGMA mmap_size`; 0, the default, maps nothing). For connections that scan a large table once and
   * close, such as ledger verification: the mapped pages count towards RSS until the connection closes.
   */
  constructor(path: string, options: { synchronous?: 'full' | 'normal'; mmapBytes?: number; idleCheckpointMs?: number } = {}) {
    this.#db = new DatabaseSync(path);
    const sync = options.synchronous === 'normal' ? 'NORMAL' : 'FULL';
    this.#sync = sync;
    const inMemory = path === '' || path === ':memory:' || path.startsWith('file::memory:');
    this.#walPath = inMemory ? undefined : `${path}-wal`;
    this.#idleCheckpointMs = inMemory ? 0 : Math.max(0, options.idleCheckpointMs ?? IDLE_CHECKPOINT_MS);
    // busy_timeout first: switching to WAL needs a lock, and another connection (a verify worker, another process) may hold it.
    this.#db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}; PRAGMA journal_mode = WAL; PRAGMA synchronous = ${sync}; PRAGMA foreign_keys = ON; PRAGMA journal_size_limit = ${JOURNAL_SIZE_LIMIT_BYTES};`);
    if (options.mmapBytes !== undefined && options.mmapBytes > 0) this.#db.exec(`PRAGMA mmap_size = ${Math.floor(options.mmapBytes)}`);
  }

  #prepare(sql: string, cache = this.#statements, arrays = false): Prepared {
    let prepared = cache.get(sql);
    if (!prepared) {
      const { sql: text, order } = translate(sql);
      const stmt = this.#db.prepare(text);
      if (arrays) stmt.setReturnArrays(true);
      prepared = { stmt, order };
      cache.set(sql, prepared);
    }
    return prepared;
  }

  // Direct (unlocked) operations, used inside a held transaction.
  #all<T>(sql: string, params: readonly SqlValue[]): T[] {
    const { stmt, order } = this.#prepare(sql);
    return stmt.all(...bindable(order, params)) as T[];
  }
  #values(sql: string, params: readonly SqlValue[]): unknown[][] {
    const { stmt, order } = this.#prepare(sql, this.#arrayStatements, true);
    return stmt.all(...bindable(order, params)) as unknown as unknown[][];
  }
  #get<T>(sql: string, params: readonly SqlValue[]): T | undefined {
    const { stmt, order } = this.#prepare(sql);
    return stmt.get(...bindable(order, params)) as T | undefined;
  }
  #run(sql: string, params: readonly SqlValue[]): { changes: number } {
    const { stmt, order } = this.#prepare(sql);
    const r = stmt.run(...bindable(order, params));
    return { changes: Number(r.changes) };
  }

  async #serialised<T>(fn: () => T): Promise<T> {
    const release = await this.#mutex.lock();
    try {
      return fn();
    } finally {
      release();
    }
  }

  all<T>(sql: string, params: readonly SqlValue[] = []): Promise<T[]> {
    return this.#serialised(() => this.#all<T>(sql, params));
  }
  values(sql: string, params: readonly SqlValue[] = []): Promise<unknown[][]> {
    return this.#serialised(() => this.#values(sql, params));
  }
  get<T>(sql: string, params: readonly SqlValue[] = []): Promise<T | undefined> {
    return this.#serialised(() => this.#get<T>(sql, params));
  }
  run(sql: string, params: readonly SqlValue[] = []): Promise<{ changes: number }> {
    return this.#serialised(() => {
      const r = this.#run(sql, params);
      this.#noteWrite();
      return r;
    });
  }
  exec(sql: string): Promise<void> {
    return this.#serialised(() => {
      this.#db.exec(sql);
      this.#noteWrite();
    });
  }

  async transaction<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    return this.#transaction(fn, false);
  }

  /**
   * A transaction that does not wait for the disk: committed without an
   * fsync (synchronous=NORMAL for this one transaction). Only for writes
   * whose content is already durable elsewhere in the database and that a
   * crash may therefore roll back — e.g. materialising the AI record
   * journal, whose rows are deleted in the same transaction. WAL frames are
   * written in order, so the next synchronous commit makes this one durable
   * too, and a crash can only lose it whole.
   */
  async transactionWithoutSync<T>(fn: (tx: Db) => Promise<T>): Promise<T> {
    return this.#transaction(fn, true);
  }

  async #transaction<T>(fn: (tx: Db) => Promise<T>, withoutSync: boolean): Promise<T> {
    const release = await this.#mutex.lock();
    const tx: Db & { [IN_TRANSACTION]: true; [OWNER]: SqliteDb } = {
      [IN_TRANSACTION]: true,
      [OWNER]: this,
      dialect: 'sqlite',
      all: async <R>(sql: string, params: readonly SqlValue[] = []) => this.#all<R>(sql, params),
      get: async <R>(sql: string, params: readonly SqlValue[] = []) => this.#get<R>(sql, params),
      values: async (sql: string, params: readonly SqlValue[] = []) => this.#values(sql, params),
      run: async (sql: string, params: readonly SqlValue[] = []) => this.#run(sql, params),
      exec: async (sql: string) => this.#db.exec(sql),
      transaction: () => Promise.reject(new Error('nested transactions are not supported')),
      lockChain: async () => undefined,
      close: () => Promise.reject(new Error('cannot close inside a transaction')),
    };
    try {
      if (withoutSync && this.#sync !== 'NORMAL') this.#db.exec('PRAGMA synchronous = NORMAL');
      try {
        this.#db.exec('BEGIN IMMEDIATE');
        try {
          const result = await fn(tx);
          this.#db.exec('COMMIT');
          this.#noteWrite();
          return result;
        } catch (err) {
          this.#db.exec('ROLLBACK');
          throw err;
        }
      } finally {
        if (withoutSync && this.#sync !== 'NORMAL') this.#db.exec(`PRAGMA synchronous = ${this.#sync}`);
      }
    } finally {
      release();
    }
  }

  async lockChain(): Promise<void> {
    // BEGIN IMMEDIATE in transaction() already holds SQLite's single writer lock.
  }

  /**
   * Copies the WAL into the database and truncates the WAL file to zero bytes, unless another connection (a ledger
   * verify worker, another process) is reading an older snapshot or writing: then it gives up at once (busy_timeout 0
   * for this call only, so the event loop never waits on a reader) and reports `busy`. Runs by itself once writes
   * have stopped for `idleCheckpointMs`; public for tests and tools.
   */
  checkpoint(): Promise<{ busy: boolean; walBytesBefore: number }> {
    return this.#serialised(() => this.#checkpointNow());
  }

  #walBytes(): number {
    if (!this.#walPath) return 0;
    try {
      return statSync(this.#walPath).size;
    } catch {
      return 0;
    }
  }

  #checkpointNow(): { busy: boolean; walBytesBefore: number } {
    const walBytesBefore = this.#walBytes();
    if (walBytesBefore === 0 || !this.#db.isOpen) return { busy: false, walBytesBefore };
    this.#db.exec('PRAGMA busy_timeout = 0');
    try {
      const row = this.#db.prepare('PRAGMA wal_checkpoint(TRUNCATE)').get() as { busy?: number } | undefined;
      return { busy: Number(row?.busy ?? 0) !== 0, walBytesBefore };
    } catch (err) {
      // SQLITE_BUSY / SQLITE_LOCKED surface as errors on some paths: the same as a busy row.
      if (/busy|locked/i.test(String((err as Error).message))) return { busy: true, walBytesBefore };
      throw err;
    } finally {
      this.#db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  }

  #noteWrite(): void {
    if (this.#idleCheckpointMs === 0) return;
    this.#lastWriteAt = performance.now();
    this.#busyRetries = 0;
    this.#armCheckpoint(this.#idleCheckpointMs);
  }

  #armCheckpoint(ms: number): void {
    if (this.#checkpointTimer) return;
    this.#checkpointTimer = setTimeout(() => this.#onIdleTimer(), ms);
    // Never keeps a process alive (CLI tools, tests): a process that exits closes the database, which checkpoints.
    this.#checkpointTimer.unref();
  }

  #onIdleTimer(): void {
    this.#checkpointTimer = undefined;
    const quiet = performance.now() - this.#lastWriteAt;
    if (quiet < this.#idleCheckpointMs) {
      this.#armCheckpoint(this.#idleCheckpointMs - quiet);
      return;
    }
    this.checkpoint().then(
      ({ busy }) => {
        if (busy && this.#busyRetries < IDLE_CHECKPOINT_BUSY_RETRIES && this.#db.isOpen) {
          this.#busyRetries++;
          this.#armCheckpoint(this.#idleCheckpointMs * 2 ** this.#busyRetries);
        }
      },
      // A failed checkpoint loses nothing (the WAL stays, SQLite's own checkpoints go on); the next write re-arms it.
      () => undefined,
    );
  }

  async close(): Promise<void> {
    if (this.#checkpointTimer) clearTimeout(this.#checkpointTimer);
    this.#checkpointTimer = undefined;
    const release = await this.#mutex.lock();
    try {
      this.#statements.clear();
      this.#arrayStatements.clear();
      if (this.#db.isOpen) this.#db.close();
    } finally {
      release();
    }
  }
}
