/**
 * The durable-commit floor on this machine: p50/p95 of one small SQLite
 * transaction in the engine's mode (WAL, synchronous=FULL — one fsync per
 * commit), measured in the same run as the gateway. Sequential requests
 * through svc each wait for one such commit before they are answered
 * (docs/decisions/067), so no svc configuration on this disk can add less.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { summarize } from '../bench-report.ts';

/** `samples`: every commit's time (ms), for pooling several measurements of one run. */
export function measureCommitFloor(commits = 300): { p50: number; p95: number; samples: number[] } {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'commit-floor-'));
  const db = new DatabaseSync(path.join(dir, 'floor.db'));
  try {
    db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
    const insert = db.prepare('INSERT INTO t (body) VALUES (?)');
    const body = 'x'.repeat(1500);
    const ms: number[] = [];
    for (let i = 0; i < commits; i++) {
      const t0 = performance.now();
      db.exec('BEGIN IMMEDIATE');
      for (let r = 0; r < 6; r++) insert.run(body);
      db.exec('COMMIT');
      ms.push(performance.now() - t0);
    }
    const s = summarize(ms);
    return { p50: s.p50, p95: s.p95, samples: ms };
  } finally {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
