/**
 * Filesystem chunk store.
 *
 * Layout: `<root>/<scope>/<h0h1>/<h2h3>/<sha256-hex>.<codec>` — two levels of
 * 256 shard directories keep directories small at millions of chunks
 * (chunk-key.ts; the S3 store uses the same layout under its prefix).
 *
 * Writes are atomic and durable:
 * 1. the bytes go to a temporary file (`.tmp-*`) in the destination directory,
 *    which is fsynced and closed;
 * 2. the temporary file is hard-linked to its final name. `link` never
 *    replaces an existing file, so two writers racing on the same chunk both
 *    succeed, exactly one reports `created`, and a reader never sees a partial
 *    file; the temporary name is then removed;
 * 3. directory entries are fsynced by {@link FsChunkStore.flush}, once per
 *    directory touched, instead of once per chunk. The ingest pipeline flushes
 *    before it returns, i.e. before any manifest can reference the chunks, so
 *    a crash can lose only chunks that nothing references yet.
 */
import { randomBytes } from 'node:crypto';
import { constants as fsConstants, readFile as readFileCallback } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ChunkCodec } from '../chunking/chunk-codec.ts';
import { chunkKeySegments, type ListedChunk, parseChunkKey } from './chunk-key.ts';
import type { ChunkScope } from './chunk-scope.ts';
import { CHUNK_SCOPE_PATTERN } from './chunk-scope.ts';
import type { ChunkPutResult, ChunkStore, ChunkWriter, StoredChunkInfo } from './chunk-store.ts';
import { chunkReadFailure as readFailure, decodeVerifiedChunk } from './verify-chunk.ts';

/** The callback `readFile`, promisified: measured ~1.3–2× faster than `fs.promises.readFile` on 64 KiB files. */
const readWholeFile = promisify(readFileCallback);

/** Temporary files start with this; {@link FsChunkStore.sweepTemporaryFiles} removes leftovers. */
const TEMP_PREFIX = '.tmp-';

/** First-level shard directories of the one-file-per-chunk layout. */
const SHARD_PATTERN = /^[0-9a-f]{2}$/;

export interface FsChunkStoreOptions {
  /** Directory that holds all scopes; created if missing. */
  root: string;
  /**
   * fsync each chunk file before it is linked into place (default true).
   * Tests may turn it off for speed; production must not.
   */
  fsyncFiles?: boolean;
}

function isErrno(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as NodeJS.ErrnoException).code === code;
}

export class FsChunkStore implements ChunkStore {
  readonly root: string;
  readonly #fsyncFiles: boolean;
  /** Directories known to exist (saves a mkdir per put). */
  readonly #knownDirs = new Set<string>();
  /** Directories whose entries changed since the last flush. */
  #dirtyDirs = new Set<string>();

  constructor(options: FsChunkStoreOptions) {
    this.root = path.resolve(options.root);
    this.#fsyncFiles = options.fsyncFiles ?? true;
  }

  /** Path of one stored form; exposed for operators' tooling and tests that damage chunks on purpose. */
  pathOf(scope: ChunkScope, id: string, codec: ChunkCodec): string {
    return path.join(this.root, ...chunkKeySegments(scope, id, codec));
  }

  /** Every put is written on its own: the store is its own writer. */
  openWriter(): ChunkWriter {
    return this;
  }

  async stat(scope: ChunkScope, id: string, codec?: ChunkCodec): Promise<StoredChunkInfo | undefined> {
    const candidates: ChunkCodec[] = codec ? [codec] : ['zstd', 'raw'];
    for (const candidate of candidates) {
      try {
        const st = await fs.stat(this.pathOf(scope, id, candidate));
        return { codec: candidate, storedLength: st.size };
      } catch (err) {
        if (!isErrno(err, 'ENOENT')) throw err;
      }
    }
    return undefined;
  }

  /** Whether `scope` holds any chunk file (a shard directory): the pack store skips this layout for scopes that do not. */
  async holdsScope(scope: ChunkScope): Promise<boolean> {
    if (!CHUNK_SCOPE_PATTERN.test(scope)) throw new TypeError(`invalid chunk scope ${JSON.stringify(scope)}`);
    try {
      return (await fs.readdir(path.join(this.root, scope))).some((name) => SHARD_PATTERN.test(name));
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return false;
      throw err;
    }
  }

  /**
   * Every stored form of the old layout, scope by scope (`svc chunks
   * migrate`); packs and temporary files are skipped. A file removed while
   * the walk runs is left out.
   */
  async *listChunks(): AsyncGenerator<ListedChunk> {
    const readdir = async (dir: string): Promise<string[]> => {
      try {
        return (await fs.readdir(dir)).sort();
      } catch (err) {
        if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) return [];
        throw err;
      }
    };
    for (const scope of await readdir(this.root)) {
      if (!CHUNK_SCOPE_PATTERN.test(scope)) continue;
      for (const s1 of (await readdir(path.join(this.root, scope))).filter((n) => SHARD_PATTERN.test(n))) {
        for (const s2 of (await readdir(path.join(this.root, scope, s1))).filter((n) => SHARD_PATTERN.test(n))) {
          for (const file of await readdir(path.join(this.root, scope, s1, s2))) {
            const parsed = parseChunkKey(`${scope}/${s1}/${s2}/${file}`);
            if (!parsed) continue;
            try {
              const st = await fs.stat(path.join(this.root, scope, s1, s2, file));
              yield { ...parsed, size: st.size };
            } catch (err) {
              if (!isErrno(err, 'ENOENT')) throw err;
            }
          }
        }
      }
    }
  }

  async put(scope: ChunkScope, id: string, codec: ChunkCodec, data: Uint8Array): Promise<ChunkPutResult> {
    const finalPath = this.pathOf(scope, id, codec);
    const dir = path.dirname(finalPath);
    await this.#ensureDir(dir);
    const tempPath = path.join(dir, `${TEMP_PREFIX}${randomBytes(8).toString('hex')}`);
    const handle = await this.#openTemp(tempPath);
    try {
      await handle.writeFile(data);
      if (this.#fsyncFiles) await handle.sync();
    } catch (err) {
      await handle.close().catch(() => undefined);
      await fs.rm(tempPath, { force: true });
      throw err;
    }
    await handle.close();
    let created = true;
    try {
      await fs.link(tempPath, finalPath);
    } catch (err) {
      if (!isErrno(err, 'EEXIST')) {
        await fs.rm(tempPath, { force: true });
        throw err;
      }
      created = false;
    }
    await fs.unlink(tempPath);
    this.#dirtyDirs.add(dir);
    return { created };
  }

  async get(scope: ChunkScope, id: string, codec: ChunkCodec, rawLengthHint?: number): Promise<Uint8Array> {
    return decodeVerifiedChunk(id, codec, await this.#readOrFail(scope, id, codec), rawLengthHint);
  }

  readStored(scope: ChunkScope, id: string, codec: ChunkCodec): Promise<Uint8Array> {
    return this.#readOrFail(scope, id, codec);
  }

  async delete(scope: ChunkScope, id: string, codec: ChunkCodec): Promise<boolean> {
    const file = this.pathOf(scope, id, codec);
    try {
      await fs.unlink(file);
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return false;
      throw err;
    }
    this.#dirtyDirs.add(path.dirname(file));
    return true;
  }

  async flush(): Promise<void> {
    const dirs = [...this.#dirtyDirs];
    this.#dirtyDirs = new Set();
    await Promise.all(dirs.map((dir) => this.#fsyncDir(dir)));
  }

  /**
   * Readiness probe: the root exists and accepts a durable write, a read and
   * a delete. Throws with the reason otherwise.
   */
  async probe(): Promise<void> {
    await fs.mkdir(this.root, { recursive: true });
    const file = path.join(this.root, `${TEMP_PREFIX}probe-${randomBytes(6).toString('hex')}`);
    const handle = await fs.open(file, 'wx', 0o600);
    try {
      await handle.writeFile('probe');
      await handle.sync();
    } finally {
      await handle.close();
    }
    const back = await fs.readFile(file, 'utf8');
    await fs.unlink(file);
    if (back !== 'probe') throw new Error('chunk store probe read back different bytes');
  }

  /**
   * Removes temporary files left by a crash mid-write. Call at startup,
   * before writers start (a live writer's temp file would be removed too).
   * @returns how many were removed
   */
  async sweepTemporaryFiles(): Promise<number> {
    let removed = 0;
    const walk = async (dir: string, depth: number): Promise<void> => {
      let entries;
      try {
        entries = await fs.readdir(dir, { withFileTypes: true });
      } catch (err) {
        if (isErrno(err, 'ENOENT')) return;
        throw err;
      }
      for (const entry of entries) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory() && depth < 3) await walk(full, depth + 1);
        else if (entry.isFile() && entry.name.startsWith(TEMP_PREFIX)) {
          await fs.rm(full, { force: true });
          removed++;
        }
      }
    };
    await walk(this.root, 0);
    return removed;
  }

  async #readOrFail(scope: ChunkScope, id: string, codec: ChunkCodec): Promise<Uint8Array> {
    try {
      return await readWholeFile(this.pathOf(scope, id, codec));
    } catch (err) {
      if (isErrno(err, 'ENOENT')) throw readFailure(id, 'missing', err);
      throw err;
    }
  }

  async #openTemp(tempPath: string): Promise<fs.FileHandle> {
    const flags = fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL;
    try {
      return await fs.open(tempPath, flags, 0o644);
    } catch (err) {
      if (!isErrno(err, 'ENOENT')) throw err;
      // The shard directory was removed behind our back (an operator cleaning
      // up): forget it and create it again, once.
      const dir = path.dirname(tempPath);
      this.#knownDirs.delete(dir);
      await this.#ensureDir(dir);
      return fs.open(tempPath, flags, 0o644);
    }
  }

  async #ensureDir(dir: string): Promise<void> {
    if (this.#knownDirs.has(dir)) return;
    const firstCreated = await fs.mkdir(dir, { recursive: true });
    if (firstCreated !== undefined) {
      // New directories are entries in their parents: those need an fsync too.
      for (let d = dir; d.length >= firstCreated.length && d !== this.root; d = path.dirname(d)) {
        this.#dirtyDirs.add(path.dirname(d));
      }
    }
    this.#knownDirs.add(dir);
  }

  async #fsyncDir(dir: string): Promise<void> {
    const handle = await fs.open(dir, fsConstants.O_RDONLY);
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  }
}
