/**
 * A pack chunk store on a fresh temporary directory, with its SQLite index
 * migrated, closed and removed after the test: the set-up the chunk-store,
 * ingest and rehydration tests share.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FrameCodec } from '../../src/svc/chunking/frame-codec.ts';
import { FsChunkStore } from '../../src/svc/chunk-store/fs-chunk-store.ts';
import { FsPackFiles, type PackFiles } from '../../src/svc/chunk-store/pack-files.ts';
import { PackedChunkStore } from '../../src/svc/chunk-store/packed-chunk-store.ts';
import { migrate } from '../../src/svc/store/migrate.ts';
import { ChunkPackRepository } from '../../src/svc/store/repositories/chunk-packs.ts';
import { SqliteDb } from '../../src/svc/store/sqlite-db.ts';

export interface TempPackStore {
  root: string;
  db: SqliteDb;
  index: ChunkPackRepository;
  /** The filesystem pack files under `<root>/chunks`. */
  files: FsPackFiles;
  /** A store over the index: `packs` (default `files`), pack target (default 1 MiB), frames (the store's default unless given), and the old one-file-per-chunk layout under the same root when `legacy`. */
  make(options?: { packs?: PackFiles; packTargetBytes?: number; frameCodec?: FrameCodec | 'none'; legacy?: boolean }): PackedChunkStore;
}

export async function tempPackStore(t: { after(fn: () => Promise<void> | void): void }, prefix = 'svc-packs-'): Promise<TempPackStore> {
  const root = mkdtempSync(path.join(os.tmpdir(), prefix));
  const db = new SqliteDb(path.join(root, 'index.sqlite'), { synchronous: 'normal' });
  await migrate(db);
  t.after(async () => {
    await db.close();
    rmSync(root, { recursive: true, force: true });
  });
  const index = new ChunkPackRepository(db);
  const files = new FsPackFiles({ root: path.join(root, 'chunks') });
  return {
    root,
    db,
    index,
    files,
    make: (options = {}) =>
      new PackedChunkStore({
        packs: options.packs ?? files,
        index,
        packTargetBytes: options.packTargetBytes ?? 1024 * 1024,
        ...(options.frameCodec ? { frameCodec: options.frameCodec } : {}),
        ...(options.legacy ? { legacy: new FsChunkStore({ root: path.join(root, 'chunks') }) } : {}),
      }),
  };
}
