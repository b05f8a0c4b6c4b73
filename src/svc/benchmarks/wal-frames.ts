/**
 * What a SQLite WAL holds, b-tree by b-tree: the pages its frames carry and
 * how many of them end a commit. Used to measure how many pages a
 * workload's commits write (bench/ai/record-frames.ts: the AI gateway's
 * records per cache miss, docs/decisions/183) — a count that does not move
 * with the machine's load, unlike CPU time.
 *
 * The WAL is read as a file (format: https://sqlite.org/fileformat2.html#walformat):
 * a 32-byte header (page size at offset 8), then frames of a 24-byte header
 * (page number at 0, the database size in pages at 4 — non-zero only in the
 * last frame of a commit) and one page. Read it while nothing checkpoints
 * (`PRAGMA wal_autocheckpoint = 0` on the writer), or a checkpoint that
 * restarts the WAL overwrites what is being counted.
 */
import { readFileSync } from 'node:fs';
import { DatabaseSync } from 'node:sqlite';

export interface WalContents {
  pageSize: number;
  /** The page number of every frame, in WAL order. */
  pages: number[];
  /** Frames that end a commit. */
  commits: number;
}

const WAL_HEADER = 32;
const FRAME_HEADER = 24;

/** Parses a WAL file; frames after the last whole one are ignored. */
export function readWal(walPath: string): WalContents {
  const buf = readFileSync(walPath);
  if (buf.length < WAL_HEADER) return { pageSize: 0, pages: [], commits: 0 };
  const pageSize = buf.readUInt32BE(8);
  const pages: number[] = [];
  let commits = 0;
  for (let at = WAL_HEADER; at + FRAME_HEADER + pageSize <= buf.length; at += FRAME_HEADER + pageSize) {
    pages.push(buf.readUInt32BE(at));
    if (buf.readUInt32BE(at + 4) !== 0) commits++;
  }
  return { pageSize, pages, commits };
}

/**
 * Frames per b-tree page kind (`"<table or index> <leaf|internal|overflow>"`,
 * `"page 1"`, and `"free or new"` for pages the database file does not
 * place in a b-tree — freelist pages, or pages the WAL added that the file
 * has not seen yet; checkpoint first to place those), largest first.
 * Opens `dbPath` read-only (needs SQLite's `dbstat`, built into Node's).
 */
export function framesByBtree(dbPath: string, pages: readonly number[]): Array<{ btree: string; frames: number }> {
  const db = new DatabaseSync(dbPath, { readOnly: true });
  const owner = new Map<number, string>();
  try {
    for (const r of db.prepare('SELECT name, pageno, pagetype FROM dbstat').all() as Array<{ name: string; pageno: number; pagetype: string }>) {
      owner.set(Number(r.pageno), `${r.name} ${r.pagetype}`);
    }
  } finally {
    db.close();
  }
  const counts = new Map<string, number>();
  for (const page of pages) {
    const key = page === 1 ? 'page 1' : (owner.get(page) ?? 'free or new');
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts].map(([btree, frames]) => ({ btree, frames })).sort((a, b) => b.frames - a.frames || a.btree.localeCompare(b.btree));
}
