/**
 * The append side of the hash-chained JSONL audit log.
 *
 * Concurrency: every operation — a batch of appends, a rotation, a liveness
 * probe — runs on one in-process task chain, so none interleave. Appends are
 * group-committed: a batch is chained onto the current head, written with
 * one `write` that is durable on return when the policy is `per_batch` (the
 * file is open O_DSYNC: fdatasync semantics), and only
 * then are the callers resolved — so a response is never released before its
 * audit entry is durable, and concurrent requests produce one unbroken chain.
 *
 * Fail closed (issue 18, item 11): the log keeps its file open and, before
 * every batch and on every readiness probe, checks that the path still names
 * that file (not removed, not replaced by logrotate), that its size is what
 * this process wrote (not truncated, not appended to by someone else), and
 * that the last entry's bytes are unchanged. Any difference stops all appends
 * for good: the service turns not-ready and refuses attributions
 * (`audit_unavailable`) instead of writing to a file nobody will read.
 *
 * Which thread writes: a batch is written through libuv's thread pool, so
 * the service thread keeps serving while the disk syncs. When the caller
 * says it is alone (`append(record, { alone: true })`: no other request is
 * in flight, docs/decisions/171-attr-sequential-request-critical-path.md)
 * the batch is written by a blocking `write` in the calling thread instead,
 * without the yield that gathers a group: the same bytes, the same O_DSYNC
 * file, the same chain and the same release-after-durable order, minus the
 * yield and two thread hand-offs (wake a pool thread, wake the service thread
 * again): 0.7–0.9 ms p50 off a sequential request on a shared 2-core machine.
 *
 * Rotation (`rotate()`, SIGHUP in attr-service, `attr-service-audit-rotate`)
 * closes the live file as segment `<path>.NNNNNN` and continues the chain in
 * a fresh live file (audit-segments.ts, docs/decisions/132-audit-log-rotation.md).
 * One process owns a log: attr-service locks it (src/attr/service/state-lock.ts).
 */
import { constants, fstatSync, readSync, statSync, writeSync } from 'node:fs';
import { mkdir, open, rename, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { GENESIS_HASH, chainHash } from '../../core/hash-chain.ts';
import { AUDIT_ENTRY_SCHEMA_ID, auditEntryCanonicalBody, type AuditEntry, type AuditRecord } from './audit-entry.ts';
import { closedSegments, segmentPath } from './audit-segments.ts';
import { verifyAuditLogFile } from './verify-audit-log.ts';

export type AuditFsyncPolicy = 'per_batch' | 'none';

/** Raised when the log cannot accept entries; the service maps it to a fail-closed 500. */
export class AuditLogUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuditLogUnavailableError';
  }
}

/** How a caller wants its entry appended. */
export interface AppendOptions {
  /**
   * No other append can join this one (the service has no other request in
   * flight): skip the group-commit yield and write in the calling thread,
   * which blocks its event loop for the one durable write nobody else is
   * waiting behind. A batch is written this way only when every entry in it
   * asked for it; a wrong hint costs latency, never durability or order.
   */
  alone?: boolean;
}

interface Pending {
  record: AuditRecord;
  alone: boolean;
  resolve: (entry: AuditEntry) => void;
  reject: (err: Error) => void;
}

export interface AuditLogState {
  path: string;
  /** Entries in the whole chain (all segments): the head's sequence number. */
  entries: number;
  headHash: string;
  /** Number of the live segment: 1 + closed segments. */
  segment: number;
  healthy: boolean;
  /** Why the log refuses appends, when it does. */
  problem: string | undefined;
}

/** What a rotation closed: the segment file and the head it ends with (the next segment's first prev_hash). */
export interface RotationResult {
  segment: number;
  segmentPath: string;
  headSeq: number;
  headHash: string;
}

async function fsyncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

export class AuditLog {
  readonly path: string;
  readonly #fsync: AuditFsyncPolicy;
  readonly #now: () => Date;
  #handle: FileHandle | undefined;
  #ino = 0;
  #dev = 0;
  /** Bytes of the live file, all written by this process (or verified at open). */
  #bytes = 0;
  /** The last line written (with its newline), to re-read and compare before the next batch. */
  #lastLine: Buffer | undefined;
  #seq: number;
  #head: string;
  #segment: number;
  #problem: string | undefined;
  #queue: Pending[] = [];
  #drainScheduled = false;
  #chain: Promise<unknown> = Promise.resolve();

  private constructor(filePath: string, fsync: AuditFsyncPolicy, now: () => Date, seq: number, head: string, segment: number, problem: string | undefined) {
    this.path = filePath;
    this.#fsync = fsync;
    this.#now = now;
    this.#seq = seq;
    this.#head = head;
    this.#segment = segment;
    this.#problem = problem;
  }

  /**
   * Opens (creating if needed) the log and resumes its chain across its
   * segments. A log that does not verify is opened in a refusing state: the
   * service still starts so /readyz can say why, but no entry is appended to
   * a broken chain.
   */
  static async open(filePath: string, options: { fsync: AuditFsyncPolicy; now?: () => Date }): Promise<AuditLog> {
    const now = options.now ?? (() => new Date());
    await mkdir(path.dirname(filePath), { recursive: true });
    const report = await verifyAuditLogFile(filePath, { missingIsEmpty: true });
    const segment = report.segments.filter((s) => s.path !== filePath).length + 1;
    if (!report.ok) {
      const bad = report.first_bad_entry;
      const why = bad ? `audit log does not verify: ${bad.kind} at line ${bad.line}` : 'audit log does not verify';
      return new AuditLog(filePath, options.fsync, now, report.head_seq ?? 0, report.head_hash ?? GENESIS_HASH, segment, why);
    }
    const log = new AuditLog(filePath, options.fsync, now, report.head_seq ?? 0, report.head_hash ?? GENESIS_HASH, segment, undefined);
    try {
      await log.#openLive('append');
    } catch (err) {
      log.#problem = `audit log not writable: ${(err as NodeJS.ErrnoException).code ?? 'error'}`;
    }
    return log;
  }

  /**
   * Opens the live file and records its identity, size and last line. With
   * `per_batch` the file is opened O_DSYNC: a batch's one `write` returns only
   * once its bytes (and the size that reaches them) are on stable storage —
   * the durability of write + fdatasync in one call instead of two trips
   * through the thread pool.
   */
  async #openLive(mode: 'append' | 'create'): Promise<void> {
    const base = mode === 'append' ? constants.O_RDWR | constants.O_CREAT | constants.O_APPEND : constants.O_RDWR | constants.O_CREAT | constants.O_EXCL | constants.O_APPEND;
    const handle = await open(this.path, this.#fsync === 'per_batch' ? base | constants.O_DSYNC : base, 0o600);
    const st = await handle.stat();
    this.#handle = handle;
    this.#ino = st.ino;
    this.#dev = st.dev;
    this.#bytes = st.size;
    this.#lastLine = undefined;
    if (st.size > 0) {
      // The last line (up to 64 KiB back) is what the tail check compares from now on.
      const span = Math.min(st.size, 65_536);
      const buf = Buffer.alloc(span);
      await handle.read(buf, 0, span, st.size - span);
      const cut = buf.lastIndexOf(0x0a, buf.length - 2);
      this.#lastLine = buf.subarray(cut + 1);
    }
  }

  state(): AuditLogState {
    return { path: this.path, entries: this.#seq, headHash: this.#head, segment: this.#segment, healthy: this.#problem === undefined, problem: this.#problem };
  }

  /** Appends one record; resolves with the chained entry once it is written (and synced, per policy). */
  append(record: AuditRecord, options: AppendOptions = {}): Promise<AuditEntry> {
    if (this.#problem !== undefined) return Promise.reject(new AuditLogUnavailableError(this.#problem));
    const alone = options.alone === true;
    return new Promise<AuditEntry>((resolve, reject) => {
      this.#queue.push({ record, alone, resolve, reject });
      if (this.#drainScheduled) return;
      this.#drainScheduled = true;
      void this.#run(async () => {
        // Yield once so appends issued in the same tick join the first batch (nothing can join a lone caller's).
        if (!alone) await new Promise<void>((r) => setImmediate(r));
        this.#drainScheduled = false;
        while (this.#queue.length > 0) {
          const batch = this.#queue;
          this.#queue = [];
          await this.#commit(batch);
        }
      });
    });
  }

  /** Re-checks the live file now (readiness probe); resolves with the state after the check. */
  probe(): Promise<AuditLogState> {
    return this.#run(async () => {
      if (this.#problem === undefined && this.#handle !== undefined) await this.#checkLive(this.#handle);
      return this.state();
    });
  }

  /**
   * Closes the live file as the next segment and continues the chain in a
   * fresh live file. Runs between batches: no entry is split or lost.
   */
  rotate(): Promise<RotationResult> {
    return this.#run(async () => {
      const handle = this.#handle;
      if (this.#problem !== undefined || handle === undefined) throw new AuditLogUnavailableError(this.#problem ?? 'audit log not open');
      await this.#checkLive(handle);
      if (this.#problem !== undefined) throw new AuditLogUnavailableError(this.#problem);
      const target = segmentPath(this.path, this.#segment);
      const existing = await closedSegments(this.path);
      if (existing.some((s) => s.path === target)) throw new AuditLogUnavailableError(`cannot rotate: ${target} already exists`);
      await handle.sync();
      await handle.close();
      this.#handle = undefined;
      try {
        await rename(this.path, target);
        await this.#openLive('create');
        await fsyncDir(path.dirname(this.path));
      } catch (err) {
        this.#problem = `audit log rotation failed: ${(err as NodeJS.ErrnoException).code ?? 'error'}`;
        throw new AuditLogUnavailableError(this.#problem, { cause: err });
      }
      const result: RotationResult = { segment: this.#segment, segmentPath: target, headSeq: this.#seq, headHash: this.#head };
      this.#segment++;
      return result;
    });
  }

  /** Waits for queued work, then closes the file. */
  async close(): Promise<void> {
    await this.#run(async () => undefined);
    await this.#handle?.close();
    this.#handle = undefined;
    this.#problem ??= 'audit log closed';
  }

  /** Runs `task` after every task queued before it. */
  #run<T>(task: () => Promise<T>): Promise<T> {
    const result = this.#chain.then(task);
    this.#chain = result.catch(() => undefined);
    return result;
  }

  /**
   * Sets #problem when the live file is no longer exactly what this process
   * wrote. Synchronous system calls on purpose: a stat, an fstat and a read of
   * the last line (a few hundred bytes just written, in the page cache) take
   * microseconds, while three trips through the thread pool cost every batch
   * — and every sequential request — far more on a busy machine.
   */
  async #checkLive(handle: FileHandle): Promise<void> {
    let onDisk;
    try {
      onDisk = statSync(this.path);
    } catch (err) {
      this.#problem = `audit log file was removed (${(err as NodeJS.ErrnoException).code ?? 'error'}); appends stopped`;
      return;
    }
    if (onDisk.ino !== this.#ino || onDisk.dev !== this.#dev) {
      this.#problem = 'audit log file was replaced by another file; appends stopped';
      return;
    }
    const held = fstatSync(handle.fd);
    if (held.size !== this.#bytes) {
      this.#problem = `audit log size changed outside the service (${held.size} bytes, expected ${this.#bytes}): truncated or written by another process; appends stopped`;
      return;
    }
    if (this.#lastLine !== undefined) {
      const buf = Buffer.alloc(this.#lastLine.length);
      readSync(handle.fd, buf, 0, buf.length, this.#bytes - buf.length);
      if (!buf.equals(this.#lastLine)) this.#problem = 'the last audit entry was modified outside the service; appends stopped';
    }
  }

  async #commit(batch: Pending[]): Promise<void> {
    const handle = this.#handle;
    if (this.#problem === undefined && handle !== undefined) await this.#checkLive(handle).catch((err: unknown) => {
      this.#problem = `audit log check failed: ${(err as NodeJS.ErrnoException).code ?? 'error'}`;
    });
    if (this.#problem !== undefined || handle === undefined) {
      const err = new AuditLogUnavailableError(this.#problem ?? 'audit log not open');
      for (const p of batch) p.reject(err);
      return;
    }
    let seq = this.#seq;
    let head = this.#head;
    const entries: AuditEntry[] = [];
    const recordedAt = this.#now().toISOString();
    for (const p of batch) {
      seq++;
      const unsigned = { schema: AUDIT_ENTRY_SCHEMA_ID, seq, recorded_at: recordedAt, record: p.record } as const;
      const entryHash = chainHash(head, auditEntryCanonicalBody(unsigned));
      entries.push({ ...unsigned, prev_hash: head, entry_hash: entryHash });
      head = entryHash;
    }
    const lines = entries.map((e) => `${JSON.stringify(e)}\n`);
    const bytes = Buffer.from(lines.join(''), 'utf8');
    try {
      // O_DSYNC with per_batch: durable when this returns (#openLive). A lone caller's batch is written in this
      // thread: nobody else waits behind it, and the two thread-pool hand-offs cost more than the write blocks.
      const bytesWritten = batch.every((p) => p.alone) ? writeSync(handle.fd, bytes, 0, bytes.length, null) : (await handle.write(bytes, 0, bytes.length, null)).bytesWritten;
      if (bytesWritten !== bytes.length) throw Object.assign(new Error('short write'), { code: 'ESHORTWRITE' });
    } catch (err) {
      // A partial write leaves the file's tail unknown: stop appending for good.
      this.#problem = `audit log write failed: ${(err as NodeJS.ErrnoException).code ?? 'error'}`;
      const failure = new AuditLogUnavailableError(this.#problem, { cause: err });
      for (const p of batch) p.reject(failure);
      return;
    }
    this.#seq = seq;
    this.#head = head;
    this.#bytes += bytes.length;
    this.#lastLine = Buffer.from(lines[lines.length - 1]!, 'utf8');
    batch.forEach((p, i) => p.resolve(entries[i]!));
  }
}
