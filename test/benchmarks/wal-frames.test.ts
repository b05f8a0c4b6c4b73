/**
 * The WAL reader behind bench/ai/record-frames.ts (docs/decisions/183):
 * frames and commits are counted from the file, and each frame's page is
 * placed in the b-tree that owns it.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { after, before, describe, test } from 'node:test';
import { framesByBtree, readWal } from '../../src/svc/benchmarks/wal-frames.ts';

describe('WAL frames by b-tree', () => {
  let dir: string;
  let file: string;
  let db: DatabaseSync;

  before(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'wal-frames-'));
    file = path.join(dir, 'w.db');
    db = new DatabaseSync(file);
    db.exec('PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0');
    db.exec('CREATE TABLE big (id INTEGER PRIMARY KEY, body TEXT NOT NULL); CREATE TABLE small (k TEXT PRIMARY KEY, v INTEGER NOT NULL); CREATE INDEX small_v ON small (v)');
    // Everything so far moves into the database file, so its pages are placed and the WAL starts empty.
    db.exec('PRAGMA wal_checkpoint(TRUNCATE)');
  });
  after(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  test('counts frames and commits, and places pages in their b-trees', () => {
    const insertBig = db.prepare('INSERT INTO big (body) VALUES (?)');
    const insertSmall = db.prepare('INSERT INTO small (k, v) VALUES (?, ?)');
    // Commit 1: ten rows of ~3 KB (ten leaf pages of `big` and its interior page). Commit 2: one small row.
    db.exec('BEGIN');
    for (let i = 0; i < 10; i++) insertBig.run('x'.repeat(3000));
    db.exec('COMMIT');
    db.exec('BEGIN');
    insertSmall.run('a', 1);
    db.exec('COMMIT');

    const wal = readWal(`${file}-wal`);
    assert.equal(wal.pageSize, 4096);
    assert.equal(wal.commits, 2);
    // Commit 2 writes page 1 (the change counter), the table's leaf, its key index and the v index.
    assert.ok(wal.pages.length >= 10 + 4, `frames: ${wal.pages.length}`);

    // Place the pages the WAL added: checkpoint into the file (the WAL's content was read above).
    db.exec('PRAGMA wal_checkpoint(PASSIVE)');
    const byBtree = new Map(framesByBtree(file, wal.pages).map((r) => [r.btree, r.frames]));
    assert.equal(byBtree.get('big leaf'), 10);
    assert.equal(byBtree.get('small leaf'), 1);
    assert.equal(byBtree.get('sqlite_autoindex_small_1 leaf'), 1);
    assert.equal(byBtree.get('small_v leaf'), 1);
    assert.ok((byBtree.get('page 1') ?? 0) >= 1);
    const total = [...byBtree.values()].reduce((a, b) => a + b, 0);
    assert.equal(total, wal.pages.length);
  });

  test('a WAL shorter than its header reads as no frames', () => {
    const empty = path.join(dir, 'empty-wal');
    writeFileSync(empty, '');
    assert.deepEqual(readWal(empty), { pageSize: 0, pages: [], commits: 0 });
  });
});
