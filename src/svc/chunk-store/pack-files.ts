/**
 * Where pack bytes live: the one thing that differs between backends once
 * chunks are packed. A pack is written whole and durably, read by ranges,
 * and deleted whole by garbage collection; packs are never modified.
 *
 * Layout (both backends, relative to the store root or prefix):
 * `<scope>/packs/<p0p1>/<pack-id>.pack`, beside the old one-file-per-chunk
 * shards (`<scope>/<h0h1>/…`), which stay readable.
 */
import { randomBytes } from 'node:crypto';
import fsCallback, { constants as fsConstants } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import type { ChunkScope } from './chunk-scope.ts';
import { CHUNK_SCOPE_PATTERN } from './chunk-scope.ts';
import type { ReadBuffers } from './read-buffers.ts';

export const PACK_ID_PATTERN = /^pk_[0-9a-f]{32}$/;

export function newPackId(): string {
  return `pk_${randomBytes(16).toString('hex')}`;
}

/** `[scope, 'packs', shard, file]` of one pack; checked so no name read from the database escapes the store. */
export function packKeySegments(scope: ChunkScope | string, packId: string): [string, string, string, string] {
  if (!CHUNK_SCOPE_PATTERN.test(scope)) throw new TypeError(`invalid chunk scope ${JSON.stringify(scope)}`);
  if (!PACK_ID_PATTERN.test(packId)) throw new TypeError(`invalid pack id ${JSON.stringify(packId)}`);
  return [scope, 'packs', packId.slice(3, 5), `${packId}.pack`];
}

export interface PackFiles {
  /** Stores a whole pack; resolves once it is durable (file and directory entry fsynced; S3 acknowledged). */
  write(scope: ChunkScope, packId: string, bytes: Uint8Array): Promise<void>;
  /**
   * Like `write`, with the pack given as pieces to write one after the other
   * (pack-format.ts buildPackParts): the filesystem writes them with writev,
   * so the pack is never assembled in one buffer. Optional: without it the
   * caller concatenates and calls `write`.
   */
  writeParts?(scope: ChunkScope, packId: string, parts: readonly Uint8Array[]): Promise<void>;
  /**
   * `length` bytes at `offset`; undefined when the pack does not exist.
   * Fewer bytes than asked come back when the pack is shorter (the caller's hash check reports it).
   * `into`: a backend that reads into memory it allocates may borrow it from there instead (the caller
   * gives it back when done, read-buffers.ts); one that does not simply ignores it.
   */
  read(scope: ChunkScope, packId: string, offset: number, length: number, into?: ReadBuffers): Promise<Uint8Array | undefined>;
  /**
   * Optional: the bytes from `offset` on, filling `targets` one after the
   * other with one read (a run of neighbouring entries and the headers
   * between them: decision 199). Resolves to the bytes read in all — fewer
   * than the targets hold when the pack is shorter — or undefined when the
   * pack does not exist.
   */
  readInto?(scope: ChunkScope, packId: string, offset: number, targets: readonly Uint8Array[]): Promise<number | undefined>;
  /** Removes a pack; false when it did not exist. */
  delete(scope: ChunkScope, packId: string): Promise<boolean>;
  /** Every pack id present under `scope` with its size and age (garbage collection finds orphans this way). */
  list(scope: ChunkScope): Promise<Array<{ packId: string; size: number; modified: Date }>>;
  /** Every scope that has a packs directory. */
  scopes(): Promise<ChunkScope[]>;
}

function isErrno(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as NodeJS.ErrnoException).code === code;
}

/** Temporary pack files start with this; the chunk store's startup sweep removes leftovers of a crash. */
const TEMP_PREFIX = '.tmp-';

export interface FsPackFilesOptions {
  root: string;
  /** fsync packs and their directories (default true; tests may turn it off for speed, production must not). */
  fsync?: boolean;
  /** Counts fsyncs and files written (the storage benchmark reports them per GiB). */
  counters?: { files: number; fsyncs: number };
}

export class FsPackFiles implements PackFiles {
  readonly root: string;
  readonly #fsync: boolean;
  readonly #knownDirs = new Set<string>();
  readonly counters: { files: number; fsyncs: number };
  readonly #descriptors = new DescriptorCache(MAX_OPEN_PACKS);

  constructor(options: FsPackFilesOptions) {
    this.root = path.resolve(options.root);
    this.#fsync = options.fsync ?? true;
    this.counters = options.counters ?? { files: 0, fsyncs: 0 };
  }

  pathOf(scope: ChunkScope | string, packId: string): string {
    return path.join(this.root, ...packKeySegments(scope, packId));
  }

  /**
   * Write to a temporary name, fsync, rename into place, fsync the directory
   * (and any directory created on the way): only then is the pack durable
   * under its name, and only then may the index point at it.
   */
  write(scope: ChunkScope, packId: string, bytes: Uint8Array): Promise<void> {
    return this.writeParts(scope, packId, [bytes]);
  }

  async writeParts(scope: ChunkScope, packId: string, parts: readonly Uint8Array[]): Promise<void> {
    const finalPath = this.pathOf(scope, packId);
    const dir = path.dirname(finalPath);
    const newDirs = await this.#ensureDir(dir);
    const tempPath = path.join(dir, `${TEMP_PREFIX}${packId}`);
    const handle = await fs.open(tempPath, fsConstants.O_WRONLY | fsConstants.O_CREAT | fsConstants.O_EXCL, 0o644);
    try {
      await writeAllParts(handle, parts);
      if (this.#fsync) {
        await handle.sync();
        this.counters.fsyncs++;
      }
    } catch (err) {
      await handle.close().catch(() => undefined);
      await fs.rm(tempPath, { force: true });
      throw err;
    }
    await handle.close();
    await fs.rename(tempPath, finalPath);
    this.counters.files++;
    if (this.#fsync) {
      for (const d of [dir, ...newDirs]) {
        await fsyncDir(d);
        this.counters.fsyncs++;
      }
    }
  }

  /**
   * One positional read on a descriptor kept open for the pack (an LRU of
   * {@link MAX_OPEN_PACKS}): a chunk read costs one `pread`, not an open,
   * read and close (measured 2× slower per 64 KiB chunk than the old
   * layout's whole-file read before the descriptors were kept). Packs never
   * change, so a descriptor kept past a deletion by another process still
   * reads the bytes the index named, and every read is verified anyway.
   */
  async read(scope: ChunkScope, packId: string, offset: number, length: number, into?: ReadBuffers): Promise<Uint8Array | undefined> {
    const file = this.pathOf(scope, packId);
    const fd = await this.#descriptors.acquire(file);
    if (fd === undefined) return undefined;
    try {
      const out = into ? into.borrow(length) : Buffer.allocUnsafe(length);
      let got = 0;
      while (got < length) {
        const bytesRead = await preadCallback(fd, out, got, length - got, offset + got);
        if (bytesRead === 0) break;
        got += bytesRead;
      }
      return got === length ? out : out.subarray(0, got);
    } finally {
      this.#descriptors.release(file);
    }
  }

  /**
   * One positional `preadv` into every target (continued where a read stops
   * short of them): a restore's run of neighbouring chunks costs one trip
   * through the thread pool where one `pread` per chunk cost one each —
   * ~30 µs of the main thread's CPU per trip on a virtualised host, more
   * than reading a 64 KiB chunk itself (decision 199).
   */
  async readInto(scope: ChunkScope, packId: string, offset: number, targets: readonly Uint8Array[]): Promise<number | undefined> {
    const file = this.pathOf(scope, packId);
    const fd = await this.#descriptors.acquire(file);
    if (fd === undefined) return undefined;
    try {
      let got = 0;
      let pending = targets.filter((t) => t.byteLength > 0);
      while (pending.length > 0) {
        const bytesRead = await preadvCallback(fd, pending, offset + got);
        if (bytesRead === 0) break;
        got += bytesRead;
        pending = restOf(pending, bytesRead);
      }
      return got;
    } finally {
      this.#descriptors.release(file);
    }
  }

  async delete(scope: ChunkScope, packId: string): Promise<boolean> {
    const file = this.pathOf(scope, packId);
    this.#descriptors.forget(file);
    try {
      await fs.unlink(file);
      return true;
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return false;
      throw err;
    }
  }

  async list(scope: ChunkScope): Promise<Array<{ packId: string; size: number; modified: Date }>> {
    const base = path.join(this.root, scope, 'packs');
    const out: Array<{ packId: string; size: number; modified: Date }> = [];
    let shards: string[];
    try {
      shards = await fs.readdir(base);
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return out;
      throw err;
    }
    for (const shard of shards) {
      let files: string[];
      try {
        files = await fs.readdir(path.join(base, shard));
      } catch (err) {
        if (isErrno(err, 'ENOENT') || isErrno(err, 'ENOTDIR')) continue;
        throw err;
      }
      for (const file of files) {
        if (!file.endsWith('.pack')) continue;
        const packId = file.slice(0, -'.pack'.length);
        if (!PACK_ID_PATTERN.test(packId)) continue;
        try {
          const st = await fs.stat(path.join(base, shard, file));
          out.push({ packId, size: st.size, modified: st.mtime });
        } catch (err) {
          if (!isErrno(err, 'ENOENT')) throw err;
        }
      }
    }
    return out;
  }

  async scopes(): Promise<ChunkScope[]> {
    let entries: string[];
    try {
      entries = await fs.readdir(this.root);
    } catch (err) {
      if (isErrno(err, 'ENOENT')) return [];
      throw err;
    }
    return entries.filter((e) => CHUNK_SCOPE_PATTERN.test(e)) as ChunkScope[];
  }

  /** Creates `dir` if needed; returns the parents whose entries changed (they need an fsync too). */
  async #ensureDir(dir: string): Promise<string[]> {
    if (this.#knownDirs.has(dir)) return [];
    const firstCreated = await fs.mkdir(dir, { recursive: true });
    this.#knownDirs.add(dir);
    const parents: string[] = [];
    if (firstCreated !== undefined) {
      for (let d = dir; d.length >= firstCreated.length && d !== this.root; d = path.dirname(d)) parents.push(path.dirname(d));
    }
    return parents;
  }
}

/** Pack files kept open for reads, per process. */
const MAX_OPEN_PACKS = 64;

const openCallback = promisify(fsCallback.open);
const closeCallback = promisify(fsCallback.close);
function preadCallback(fd: number, buffer: Buffer, offset: number, length: number, position: number): Promise<number> {
  return new Promise((resolve, reject) => fsCallback.read(fd, buffer, offset, length, position, (err, bytesRead) => (err ? reject(err) : resolve(bytesRead))));
}

function preadvCallback(fd: number, buffers: readonly Uint8Array[], position: number): Promise<number> {
  return new Promise((resolve, reject) => fsCallback.readv(fd, buffers as NodeJS.ArrayBufferView[], position, (err, bytesRead) => (err ? reject(err) : resolve(bytesRead))));
}

/** What is left of `buffers` once their first `consumed` bytes are filled. */
function restOf(buffers: readonly Uint8Array[], consumed: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let skip = consumed;
  for (const b of buffers) {
    if (skip >= b.byteLength) {
      skip -= b.byteLength;
      continue;
    }
    out.push(skip > 0 ? b.subarray(skip) : b);
    skip = 0;
  }
  return out;
}

/**
 * Open read-only descriptors by path, least recently used closed first; a
 * descriptor in use by a read is never closed under it.
 */
class DescriptorCache {
  readonly #max: number;
  /** Insertion order is recency order. */
  readonly #open = new Map<string, { fd: Promise<number | undefined>; users: number; stale: boolean }>();

  constructor(max: number) {
    this.#max = max;
  }

  /** The descriptor of `file` (opened if needed), counted as in use; undefined when the file does not exist. */
  async acquire(file: string): Promise<number | undefined> {
    let entry = this.#open.get(file);
    if (entry) {
      this.#open.delete(file);
      this.#open.set(file, entry);
    } else {
      const fd = openCallback(file, fsConstants.O_RDONLY).catch((err: unknown) => {
        if (isErrno(err, 'ENOENT')) return undefined;
        throw err;
      });
      entry = { fd, users: 0, stale: false };
      this.#open.set(file, entry);
    }
    entry.users++; // before evicting: the entry just opened is never the one closed
    this.#evict();
    let fd: number | undefined;
    try {
      fd = await entry.fd;
    } catch (err) {
      this.release(file, entry);
      this.forget(file);
      throw err;
    }
    if (fd === undefined) {
      this.release(file, entry);
      this.forget(file); // it may appear later (another process's pack, just recorded)
    }
    return fd;
  }

  release(file: string, entry = this.#open.get(file)): void {
    if (!entry) return;
    entry.users--;
    if (entry.stale && entry.users === 0) void closeQuietly(entry.fd);
  }

  /** Drops `file` (deleted): closed now, or by its last reader. */
  forget(file: string): void {
    const entry = this.#open.get(file);
    if (!entry) return;
    this.#open.delete(file);
    entry.stale = true;
    if (entry.users === 0) void closeQuietly(entry.fd);
  }

  #evict(): void {
    for (const [file, entry] of this.#open) {
      if (this.#open.size <= this.#max) return;
      if (entry.users > 0) continue;
      this.forget(file);
    }
  }
}

async function closeQuietly(fd: Promise<number | undefined>): Promise<void> {
  const n = await fd.catch(() => undefined);
  if (n !== undefined) await closeCallback(n).catch(() => undefined);
}

/** writev until every byte is written (a short write resumes where it stopped). */
async function writeAllParts(handle: fs.FileHandle, parts: readonly Uint8Array[]): Promise<void> {
  let rest = parts.filter((p) => p.byteLength > 0);
  while (rest.length > 0) {
    let { bytesWritten } = await handle.writev(rest as Uint8Array[]);
    if (bytesWritten === 0) throw new Error('pack write made no progress');
    let i = 0;
    while (i < rest.length && bytesWritten >= rest[i]!.byteLength) bytesWritten -= rest[i++]!.byteLength;
    rest = rest.slice(i);
    if (bytesWritten > 0) rest[0] = rest[0]!.subarray(bytesWritten);
  }
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, fsConstants.O_RDONLY);
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}
