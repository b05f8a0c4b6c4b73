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
 */
import { DatabaseSync, type StatementSync } from 'node:sqlite';
import type { Db, SqlValue } from './db.ts';

type Release = () => void;

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

/** `$1` → `?1`: SQLite's numbered parameter syntax. */
function translate(sql: string): string {
  return sql.replace(/\$(\d+)/g, '?$1');
}

function bindable(params: readonly SqlValue[]): Array<string | number | bigint | null | Uint8Array> {
  return params as Array<string | number | bigint | null | Uint8Array>;
}

export class SqliteDb implements Db {
  readonly dialect = 'sqlite' as const;
  readonly #db: DatabaseSync;
  readonly #statements = new Map<string, StatementSync>();
  readonly #arrayStatements = new Map<string, StatementSync>();
  readonly #mutex = new Mutex();
  readonly #sync: 'FULL' | 'NORMAL';

  /**
   * `mmapBytes`: read the first that many bytes of the file through a memory map instead of a read system call per
   * page (`PRAGMA mmap_size`; 0, the default, maps nothing). For connections that scan a large table once and
   * close, such as ledger verification: the mapped pages count towards RSS until the connection closes.
   */
  constructor(path: string, options: { synchronous?: 'full' | 'normal'; mmapBytes?: number } = {}) {
    this.#db = new DatabaseSync(path);
    const sync = options.synchronous === 'normal' ? 'NORMAL' : 'FULL';
    this.#sync = sync;
    // busy_timeout first: switching to WAL needs a lock, and another connection (a verify worker, another process) may hold it.
    this.#db.exec(`PRAGMA busy_timeout = 5000; PRAGMA journal_mode = WAL; PRAGMA synchronous = ${sync}; PRAGMA foreign_keys = ON;`);
    if (options.mmapBytes !== undefined && options.mmapBytes > 0) this.#db.exec(`PRAGMA mmap_size = ${Math.floor(options.mmapBytes)}`);
  }

  #prepare(sql: string): StatementSync {
    let stmt = this.#statements.get(sql);
    if (!stmt) {
      stmt = this.#db.prepare(translate(sql));
      this.#statements.set(sql, stmt);
    }
    return stmt;
  }

  // Direct (unlocked) operations, used inside a held transaction.
  #all<T>(sql: string, params: readonly SqlValue[]): T[] {
    return this.#prepare(sql).all(...bindable(params)) as T[];
  }
  #values(sql: string, params: readonly SqlValue[]): unknown[][] {
    let stmt = this.#arrayStatements.get(sql);
    if (!stmt) {
      stmt = this.#db.prepare(translate(sql));
      stmt.setReturnArrays(true);
      this.#arrayStatements.set(sql, stmt);
    }
    return stmt.all(...bindable(params)) as unknown as unknown[][];
  }
  #get<T>(sql: string, params: readonly SqlValue[]): T | undefined {
    return this.#prepare(sql).get(...bindable(params)) as T | undefined;
  }
  #run(sql: string, params: readonly SqlValue[]): { changes: number } {
    const r = this.#prepare(sql).run(...bindable(params));
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
    return this.#serialised(() => this.#run(sql, params));
  }
  exec(sql: string): Promise<void> {
    return this.#serialised(() => this.#db.exec(sql));
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

  async close(): Promise<void> {
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
