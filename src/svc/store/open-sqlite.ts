/**
 * The SQLite half of `openDb` (src/svc/store/open-db.ts), in a module that does not load the PostgreSQL driver: a
 * ledger verify worker on SQLite imports only this, and starts that much sooner (the `pg` package was about a third
 * of the worker's start-up).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { SqliteDb } from './sqlite-db.ts';

export interface DbTarget {
  databaseUrl?: string | undefined;
  stateDir: string;
  /** PostgreSQL schema to use (tests isolate runs this way). */
  pgSchema?: string | undefined;
  /** SQLite `synchronous` setting (`storage.sqlite_synchronous`). */
  sqliteSynchronous?: 'full' | 'normal' | undefined;
}

export interface OpenDbOptions {
  /** SQLite only: bytes of the file read through a memory map (`SqliteDb`); PostgreSQL ignores it. */
  sqliteMmapBytes?: number;
}

/** The SQLite database `target` names (no URL: the state dir's; `sqlite:<path>`), opened; undefined for any other URL. */
export function openSqliteDb(target: DbTarget, options: OpenDbOptions = {}): SqliteDb | undefined {
  const url = target.databaseUrl;
  const sqlite = { synchronous: target.sqliteSynchronous ?? 'full', ...(options.sqliteMmapBytes === undefined ? {} : { mmapBytes: options.sqliteMmapBytes }) } as const;
  if (!url) {
    mkdirSync(target.stateDir, { recursive: true });
    return new SqliteDb(path.join(target.stateDir, 'svc.sqlite'), sqlite);
  }
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    return new SqliteDb(file, sqlite);
  }
  return undefined;
}
