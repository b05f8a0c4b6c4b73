/**
 * The storage engines a test can run on. SQLite always; PostgreSQL when
 * SVC_TEST_DATABASE_URL is set (CI sets it). Each PostgreSQL use gets its own
 * schema, dropped afterwards, so parallel test files never share tables.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';

export type EngineName = 'sqlite' | 'postgres';

export const PG_URL = process.env.SVC_TEST_DATABASE_URL;

export interface EngineSetup {
  name: EngineName;
  /** Skip reason, shown by node:test, when the engine is not available here. */
  skip: string | false;
}

export function engines(): EngineSetup[] {
  return [
    { name: 'sqlite', skip: false },
    { name: 'postgres', skip: PG_URL ? false : 'PostgreSQL tests skipped: SVC_TEST_DATABASE_URL is not set (CI sets it; see README: Testing)' },
  ];
}

export interface EngineTarget {
  stateDir: string;
  databaseUrl: string | undefined;
  pgSchema: string | undefined;
  cleanup(): Promise<void>;
}

/** A fresh state dir and, for PostgreSQL, a fresh schema. */
export async function engineTarget(name: EngineName): Promise<EngineTarget> {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'svc-test-'));
  if (name === 'sqlite') {
    return { stateDir, databaseUrl: undefined, pgSchema: undefined, cleanup: async () => rmSync(stateDir, { recursive: true, force: true }) };
  }
  if (!PG_URL) throw new Error('SVC_TEST_DATABASE_URL is not set');
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_URL });
  await admin.connect();
  await admin.query(`CREATE SCHEMA ${schema}`);
  await admin.end();
  return {
    stateDir,
    databaseUrl: PG_URL,
    pgSchema: schema,
    cleanup: async () => {
      const c = new pg.Client({ connectionString: PG_URL });
      await c.connect();
      await c.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await c.end();
      rmSync(stateDir, { recursive: true, force: true });
    },
  };
}
