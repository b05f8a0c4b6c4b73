/**
 * open-sqlite.ts is the SQLite half of openDb in a module of its own so that a ledger verify worker on SQLite never
 * loads the PostgreSQL driver (decision 165). These tests fail if it stops opening what openDb opens or starts
 * pulling in `pg`.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { openSqliteDb } from './open-sqlite.ts';

test('opens the state dir database and sqlite:<path>; any other URL is not its to open', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-open-sqlite-'));
  try {
    for (const target of [{ stateDir: dir }, { stateDir: dir, databaseUrl: `sqlite:${path.join(dir, 'other', 'x.sqlite')}` }]) {
      const db = openSqliteDb(target);
      assert.ok(db);
      assert.equal(db.dialect, 'sqlite');
      assert.equal((await db.get<{ one: number }>('SELECT 1 AS one'))?.one, 1);
      await db.close();
    }
    assert.equal(openSqliteDb({ stateDir: dir, databaseUrl: 'postgres://u@h/db' }), undefined);
    assert.equal(openSqliteDb({ stateDir: dir, databaseUrl: 'mysql://u@h/db' }), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('importing it (and the verify worker) does not load the PostgreSQL driver', () => {
  const here = path.dirname(new URL(import.meta.url).pathname);
  for (const file of [path.join(here, 'open-sqlite.ts'), path.join(here, '..', 'ledger', 'verify-worker.ts')]) {
    const script = `import { registerHooks } from 'node:module';
registerHooks({ resolve(specifier, context, next) { if (specifier === 'pg' || specifier.startsWith('pg/')) throw new Error('pg was loaded'); return next(specifier, context); } });
await import(${JSON.stringify(new URL(`file://${file}`).href)});`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    assert.equal(r.status, 0, `${file}: ${r.stderr}`);
  }
});
