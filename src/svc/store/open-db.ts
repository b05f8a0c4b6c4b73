/**
 * Chooses the engine from the database URL: absent → SQLite in the state dir;
 * `postgres://` or `postgresql://` → PostgreSQL; `sqlite:<path>` → SQLite at that path.
 */
import path from 'node:path';
import type { Db } from './db.ts';
import { type DbTarget, type OpenDbOptions, openSqliteDb } from './open-sqlite.ts';
import { PostgresDb } from './postgres-db.ts';
import { SvcError } from '../errors.ts';

export type { DbTarget, OpenDbOptions } from './open-sqlite.ts';

export function openDb(target: DbTarget, options: OpenDbOptions = {}): Db {
  const url = target.databaseUrl;
  if (url && /^postgres(ql)?:\/\//.test(url)) return new PostgresDb(url, target.pgSchema ? { schema: target.pgSchema } : {});
  const sqlite = openSqliteDb(target, options);
  if (sqlite) return sqlite;
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
