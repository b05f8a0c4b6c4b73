/**
 * Versioned migrations, one folder per dialect (`migrations/<dialect>/NNN_name.sql`).
 * Applied in order at start inside one transaction each; `schema_migrations`
 * records what ran. A migration that was applied is never edited: add a new one.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Db } from './db.ts';

const MIGRATIONS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export function listMigrations(dialect: Db['dialect']): Migration[] {
  const dir = path.join(MIGRATIONS_DIR, dialect);
  return readdirSync(dir)
    .filter((f) => /^\d{3}_[a-z0-9_]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 3)), name: f.slice(4, -4), sql: readFileSync(path.join(dir, f), 'utf8') }));
}

export async function migrate(db: Db): Promise<{ applied: string[]; current: number }> {
  await db.exec('CREATE TABLE IF NOT EXISTS schema_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TEXT NOT NULL)');
  const applied: string[] = [];
  for (const m of listMigrations(db.dialect)) {
    await db.transaction(async (tx) => {
      await tx.lockChain('schema_migrations');
      const done = await tx.get('SELECT version FROM schema_migrations WHERE version = $1', [m.version]);
      if (done) return;
      await tx.exec(m.sql);
      await tx.run('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)', [m.version, m.name, new Date().toISOString()]);
      applied.push(`${String(m.version).padStart(3, '0')}_${m.name}`);
    });
  }
  return { applied, current: await currentVersion(db) };
}

export async function currentVersion(db: Db): Promise<number> {
  const row = await db.get<{ v: number | null }>('SELECT MAX(version) AS v FROM schema_migrations');
  return Number(row?.v ?? 0);
}

/** True when every migration shipped with this build has been applied (readiness). */
export async function migrationsComplete(db: Db): Promise<boolean> {
  const shipped = listMigrations(db.dialect);
  const last = shipped[shipped.length - 1]?.version ?? 0;
  return (await currentVersion(db)) >= last;
}
