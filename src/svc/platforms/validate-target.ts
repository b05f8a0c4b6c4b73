/**
 * Validates one deployment target against a configuration without starting
 * a server: the CLI (`svc platform validate --target <t>`) and the
 * readiness route both run this. Every check either passes with what it
 * found or fails with a reason; a target whose configuration is missing
 * fails with the key to set.
 */
import path from 'node:path';
import type { SvcConfig } from '../config/schema.ts';
import { currentVersion, listMigrations } from '../store/migrate.ts';
import { SqliteDb } from '../store/sqlite-db.ts';
import { type PlatformCheck, type TargetValidation, runCheck, validation } from './platform-check.ts';
import { TARGET_IDS, type TargetId, inContainer, isPostgresUrl } from './targets.ts';
import { validateFilesystem } from './validate-filesystem.ts';
import { validatePostgres } from './validate-postgres.ts';

export interface ValidateOptions {
  env: Record<string, string | undefined>;
  /** PostgreSQL schema the service uses (tests isolate runs with it). */
  pgSchema?: string | undefined;
}

export function isTargetId(v: string): v is TargetId {
  return (TARGET_IDS as readonly string[]).includes(v);
}

function missing(name: string, detail: string): PlatformCheck {
  return { name, ok: false, required: true, detail };
}

function sqliteFile(config: Readonly<SvcConfig>): string {
  const url = config.storage.database_url;
  return url?.startsWith('sqlite:') ? url.slice('sqlite:'.length) : path.join(path.resolve(config.state_dir), 'svc.sqlite');
}

async function validateSqlite(config: Readonly<SvcConfig>): Promise<PlatformCheck[]> {
  if (isPostgresUrl(config.storage.database_url)) return [missing('sqlite.database', 'storage.database_url names PostgreSQL; this target keeps metadata in SQLite (unset SVC_DATABASE_URL)')];
  const file = sqliteFile(config);
  const checks = await validateFilesystem(path.dirname(path.resolve(file)));
  checks.push(
    await runCheck('sqlite.database', async () => {
      const db = new SqliteDb(file, { synchronous: config.storage.sqlite_synchronous });
      try {
        const mode = await db.get<{ journal_mode: string }>('PRAGMA journal_mode');
        if (mode?.journal_mode !== 'wal') throw new Error(`journal_mode is ${mode?.journal_mode}, not wal: the volume does not support SQLite's WAL (network filesystems often do not)`);
        const hasTable = await db.get('SELECT name FROM sqlite_master WHERE type = $1 AND name = $2', ['table', 'schema_migrations']);
        const current = hasTable ? await currentVersion(db) : 0;
        const last = listMigrations('sqlite').at(-1)?.version ?? 0;
        if (current > last) throw new Error(`the database is at migration ${current}, newer than this build (${last})`);
        return `${file}: WAL, synchronous=${config.storage.sqlite_synchronous}, migration ${current} of ${last}${current < last ? ' (the rest are applied at start)' : ''}`;
      } finally {
        await db.close();
      }
    }),
  );
  return checks;
}

async function validateChunksOnFilesystem(config: Readonly<SvcConfig>): Promise<PlatformCheck[]> {
  if (config.storage.chunk_backend !== 'filesystem') return [missing('filesystem.directory', 'storage.chunk_backend is s3; this target keeps chunks on the filesystem')];
  return validateFilesystem(path.resolve(config.state_dir, config.storage.chunk_dir ?? 'chunks'));
}

async function validatePostgresConfig(config: Readonly<SvcConfig>, o: ValidateOptions): Promise<PlatformCheck[]> {
  const url = config.storage.database_url;
  if (!isPostgresUrl(url)) return [missing('postgres.connect', 'storage.database_url is not a postgres:// URL (set SVC_DATABASE_URL)')];
  return validatePostgres(url!, o.pgSchema);
}

async function validateS3Config(config: Readonly<SvcConfig>, o: ValidateOptions, conditionalRequired: boolean): Promise<PlatformCheck[]> {
  const s3 = config.storage.s3;
  if (config.storage.chunk_backend !== 's3' || !s3?.bucket) return [missing('s3.bucket_reachable', 'storage.chunk_backend is not s3 or storage.s3.bucket is unset (SVC_CHUNK_BACKEND=s3, SVC_S3_BUCKET)')];
  // Imported here: only an S3 validation loads the AWS SDK.
  const { validateS3 } = await import('./validate-s3.ts');
  return validateS3({ bucket: s3.bucket, prefix: s3.prefix, region: s3.region, endpoint: s3.endpoint, forcePathStyle: s3.force_path_style }, o.env, conditionalRequired);
}

async function validateContainer(config: Readonly<SvcConfig>, o: ValidateOptions): Promise<PlatformCheck[]> {
  const checks: PlatformCheck[] = [];
  checks.push(
    await runCheck('container.runtime', async () => {
      if (!inContainer(o.env)) throw new Error('no container runtime detected (/.dockerenv, /run/.containerenv, $container or $KUBERNETES_SERVICE_HOST)');
      return 'running in a container';
    }, false),
  );
  checks.push(
    await runCheck('container.listen_address', async () => {
      if (config.server.host === '127.0.0.1' || config.server.host === 'localhost' || config.server.host === '::1') throw new Error(`server.host is ${config.server.host}: unreachable from outside the container (set SVC_HOST=0.0.0.0)`);
      return `listening on ${config.server.host}`;
    }),
  );
  checks.push(...(await validateFilesystem(path.resolve(config.state_dir))));
  return checks;
}

export async function validateTarget(target: TargetId, config: Readonly<SvcConfig>, o: ValidateOptions): Promise<TargetValidation> {
  switch (target) {
    case 'embedded':
      return validation(target, [...(await validateSqlite(config)), ...(await validateChunksOnFilesystem(config))]);
    case 'postgresql':
      return validation(target, [...(await validatePostgresConfig(config, o)), ...(await validateChunksOnFilesystem(config))]);
    case 's3':
      return validation(target, await validateS3Config(config, o, false));
    case 'cluster':
      return validation(target, [...(await validatePostgresConfig(config, o)), ...(await validateS3Config(config, o, true))]);
    case 'container':
      return validation(target, await validateContainer(config, o));
  }
}
