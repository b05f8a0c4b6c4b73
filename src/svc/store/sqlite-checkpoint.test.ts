/**
 * The WAL file is given back once writes stop (decision 174): SQLite's automatic checkpoint leaves the WAL file at
 * its largest size (4 MiB or more after any ingest), which counted in the state dir for ever. These tests fail if the
 * idle checkpoint stops truncating it, truncates it while writes are still coming, waits on a reader (the event loop
 * would block for busy_timeout), or loses a committed row.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { SqliteDb } from './sqlite-db.ts';

const walBytes = (file: string) => {
  try {
    return statSync(`${file}-wal`).size;
  } catch {
    return 0;
  }
};

async function withDb(idleCheckpointMs: number, fn: (db: SqliteDb, file: string) => Promise<void>) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sqlite-checkpoint-'));
  const file = path.join(dir, 'svc.sqlite');
  const db = new SqliteDb(file, { idleCheckpointMs });
  try {
    await db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body BLOB NOT NULL)');
    await fn(db, file);
  } finally {
    await db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** ~2 MiB in 16 transactions, as an ingest's index and manifest commits are. */
async function burst(db: SqliteDb, from: number) {
  for (let k = 0; k < 16; k++) {
    await db.transaction(async (tx) => {
      for (let j = 0; j < 4; j++) await tx.run('INSERT INTO t (id, body) VALUES ($1, randomblob(32768))', [from + k * 4 + j]);
    });
  }
}

test('after a write burst, the WAL file is truncated once writes have stopped, and every row is still there', async () => {
  await withDb(80, async (db, file) => {
    await burst(db, 0);
    assert.ok(walBytes(file) > 1024 * 1024, `WAL after the burst: ${walBytes(file)} bytes`);
    await sleep(400);
    assert.equal(walBytes(file), 0, 'WAL truncated after the idle time');
    assert.equal((await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM t'))?.n, 64);
    // A second burst grows it again, and it is given back again.
    await burst(db, 64);
    assert.ok(walBytes(file) > 0);
    await sleep(400);
    assert.equal(walBytes(file), 0);
  });
});

test('no checkpoint while writes keep coming within the idle time', async () => {
  await withDb(150, async (db, file) => {
    const until = performance.now() + 600;
    let id = 0;
    while (performance.now() < until) {
      await db.run('INSERT INTO t (id, body) VALUES ($1, randomblob(4096))', [id++]);
      await sleep(20);
      assert.ok(walBytes(file) > 0, `WAL truncated while writes were still coming (after ${id} writes)`);
    }
    await sleep(500);
    assert.equal(walBytes(file), 0);
  });
});

test('a reader holding an old snapshot makes the checkpoint give up at once (no busy wait), and a later one succeeds', async () => {
  await withDb(0, async (db, file) => {
    await burst(db, 0);
    const reader = new DatabaseSync(file);
    try {
      reader.exec('BEGIN');
      reader.prepare('SELECT COUNT(*) FROM t').get();
      await burst(db, 64); // frames the reader's snapshot does not include: the WAL cannot be reset under it
      const started = performance.now();
      const blocked = await db.checkpoint();
      assert.ok(performance.now() - started < 1000, `checkpoint waited ${performance.now() - started} ms on a reader`);
      assert.equal(blocked.busy, true);
      assert.ok(walBytes(file) > 0);
      reader.exec('COMMIT');
    } finally {
      reader.close();
    }
    const done = await db.checkpoint();
    assert.equal(done.busy, false);
    assert.ok(done.walBytesBefore > 0);
    assert.equal(walBytes(file), 0);
    assert.equal((await db.get<{ n: number }>('SELECT COUNT(*) AS n FROM t'))?.n, 128);
  });
});

test('journal_size_limit bounds what a checkpoint during a long burst leaves of the WAL', async () => {
  await withDb(0, async (db) => {
    assert.equal((await db.get<{ journal_size_limit: number }>('PRAGMA journal_size_limit'))?.journal_size_limit, 4 * 1024 * 1024);
  });
});
