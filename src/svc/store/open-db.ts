/**
 * Chooses the engine from the database URL: absent → SQLite in the state dir;
 * `postgres://` or `postgresql://` → PostgreSQL; `sqlite:<path>` → SQLite at that path.
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { Db } from './db.ts';
import { PostgresDb } from './postgres-db.ts';
import { SqliteDb } from './sqlite-db.ts';
import { SvcError } from '../errors.ts';

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

export function openDb(target: DbTarget, options: OpenDbOptions = {}): Db {
  const url = target.databaseUrl;
  const sqlite = { synchronous: target.sqliteSynchronous ?? 'full', ...(options.sqliteMmapBytes === undefined ? {} : { mmapBytes: options.sqliteMmapBytes }) } as const;
  if (!url) {
    mkdirSync(target.stateDir, { recursive: true });
    return new SqliteDb(path.join(target.stateDir, 'svc.sqlite'), sqlite);
  }
  if (/^postgres(ql)?:\/\//.test(url)) return new PostgresDb(url, target.pgSchema ? { schema: target.pgSchema } : {});
  if (url.startsWith('sqlite:')) {
    const file = url.slice('sqlite:'.length);
    if (file !== ':memory:') mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    return new SqliteDb(file, sqlite);
  }
  throw new SvcError('invalid_request', 'SVC_DATABASE_URL must be postgres://…, postgresql://… or sqlite:<path>');
}

/** A short, password-free description of where data lives (logs, readiness). */
export function describeDb(target: DbTarget): string {
  if (!target.databaseUrl) return `sqlite:${path.join(target.stateDir, 'svc.sqlite')}`;
  try {
    const u = new URL(target.databaseUrl);
    if (u.protocol.startsWith('postgres')) return `postgres://${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    // fall through
  }
  return target.databaseUrl.startsWith('sqlite:') ? target.databaseUrl : 'unknown';
}
