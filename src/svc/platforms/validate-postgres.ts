/**
 * Is this PostgreSQL usable by svc? Connect; server version at least
 * MIN_POSTGRES; migrations state against this build; CREATE privilege when
 * migrations are pending; and transaction-level advisory locks that really
 * exclude a second session (the ledger's cross-process lock — a pooler in
 * transaction mode or a proxy that fakes them would break the hash chain).
 */
import { randomInt } from 'node:crypto';
import { migrationsComplete, currentVersion, listMigrations } from '../store/migrate.ts';
import { PostgresDb } from '../store/postgres-db.ts';
import { type PlatformCheck, runCheck, skippedCheck } from './platform-check.ts';

/** The oldest major release the PostgreSQL community still supports (November 2026: 14). */
export const MIN_POSTGRES_MAJOR = 14;

/** A fresh advisory lock key per probe, so concurrent probes (readiness of two targets) do not meet. */
function probeLockKey(): number {
  return 7_000_000_000 + randomInt(1_000_000_000);
}

export async function validatePostgres(url: string, schema?: string): Promise<PlatformCheck[]> {
  const db = new PostgresDb(url, { ...(schema ? { schema } : {}), max: 2 });
  const checks: PlatformCheck[] = [];
  try {
    const connect = await runCheck('postgres.connect', async () => {
      await db.get('SELECT 1 AS ok');
      const u = new URL(url);
      return `connected to ${u.hostname}:${u.port || '5432'}${u.pathname}`;
    });
    checks.push(connect);
    if (!connect.ok) {
      for (const name of ['postgres.version', 'postgres.migrations', 'postgres.advisory_locks']) checks.push(skippedCheck(name, 'cannot connect'));
      return checks;
    }
    checks.push(
      await runCheck('postgres.version', async () => {
        const row = await db.get<{ server_version_num: string; server_version: string }>("SELECT current_setting('server_version_num') AS server_version_num, current_setting('server_version') AS server_version");
        const major = Math.floor(Number(row!.server_version_num) / 10_000);
        if (major < MIN_POSTGRES_MAJOR) throw new Error(`PostgreSQL ${row!.server_version} is older than the supported minimum ${MIN_POSTGRES_MAJOR}`);
        return `PostgreSQL ${row!.server_version}`;
      }),
    );
    checks.push(
      await runCheck('postgres.migrations', async () => {
        const shipped = listMigrations('postgres');
        const last = shipped.at(-1)?.version ?? 0;
        const exists = await db.get<{ t: string | null }>("SELECT to_regclass('schema_migrations')::text AS t");
        const current = exists?.t ? await currentVersion(db) : 0;
        if (current > last) throw new Error(`the database is at migration ${current}, newer than this build (${last}): run the newer svc or restore`);
        if (exists?.t && (await migrationsComplete(db))) return `all ${shipped.length} migrations applied (version ${current})`;
        const canCreate = await db.get<{ ok: boolean }>("SELECT has_schema_privilege(current_schema(), 'CREATE') AS ok");
        const pending = shipped.filter((m) => m.version > current).map((m) => `${String(m.version).padStart(3, '0')}_${m.name}`);
        if (!canCreate?.ok) throw new Error(`${pending.length} migration(s) pending (${pending.join(', ')}) and the user may not CREATE in schema ${schema ?? 'current_schema()'}`);
        return `${pending.length} migration(s) pending (${pending.join(', ')}); svc applies them at start (CREATE privilege present)`;
      }),
    );
    checks.push(
      await runCheck('postgres.advisory_locks', async () => {
        // Session A holds the transaction lock while session B must be refused it.
        const key = probeLockKey();
        return db.transaction(async (a) => {
          const first = await a.get<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [key]);
          if (!first?.ok) throw new Error('could not take a free advisory lock');
          const second = await db.transaction(async (b) => b.get<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [key]));
          if (second?.ok) throw new Error('a second session obtained an advisory lock already held: a connection pooler or proxy is not preserving sessions, so the ledger lock would not serialise writers');
          return 'a held transaction advisory lock excludes a second session';
        });
      }),
    );
    return checks;
  } finally {
    await db.close().catch(() => undefined);
  }
}
