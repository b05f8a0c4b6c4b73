/**
 * The append side of the hash-chained JSONL audit log.
 *
 * Concurrency: every append goes through one in-process queue. A single
 * writer drains it in batches (group commit): it chains the batch onto the
 * current head, writes the lines with one `write`, `fdatasync`s once when the
 * policy is `per_batch`, and only then resolves the callers — so a response is
 * never released before its audit entry is durable, and concurrent requests
 * always produce one unbroken chain. One process owns a log file; two services
 * pointed at the same file would fork the chain (documented in docs/attr-service.md).
 */
import { mkdir, open, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { GENESIS_HASH, chainHash } from '../../core/hash-chain.ts';
import { AUDIT_ENTRY_SCHEMA_ID, auditEntryCanonicalBody, type AuditEntry, type AuditRecord } from './audit-entry.ts';
import { verifyAuditLogFile } from './verify-audit-log.ts';

export type AuditFsyncPolicy = 'per_batch' | 'none';

/** Raised when the log cannot accept entries; the service maps it to a fail-closed 500. */
export class AuditLogUnavailableError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'AuditLogUnavailableError';
  }
}

interface Pending {
  record: AuditRecord;
  resolve: (entry: AuditEntry) => void;
  reject: (err: Error) => void;
}

export interface AuditLogState {
  path: string;
  entries: number;
  headHash: string;
  healthy: boolean;
  /** Why the log refuses appends, when it does. */
  problem: string | undefined;
}

export class AuditLog {
  readonly path: string;
  readonly #fsync: AuditFsyncPolicy;
  readonly #now: () => Date;
  #handle: FileHandle | undefined;
  #seq: number;
  #head: string;
  #problem: string | undefined;
  #queue: Pending[] = [];
  #draining: Promise<void> | undefined;

  private constructor(filePath: string, fsync: AuditFsyncPolicy, now: () => Date, seq: number, head: string, problem: string | undefined) {
    this.path = filePath;
    this.#fsync = fsync;
    this.#now = now;
    this.#seq = seq;
    this.#head = head;
    this.#problem = problem;
  }

  /**
   * Opens (creating if needed) the log and resumes its chain. An existing log
   * that does not verify is opened read-only in a refusing state: the service
   * still starts so /readyz can say why, but no entry is appended to a broken chain.
   */
  static async open(filePath: string, options: { fsync: AuditFsyncPolicy; now?: () => Date }): Promise<AuditLog> {
    const now = options.now ?? (() => new Date());
    await mkdir(path.dirname(filePath), { recursive: true });
    const report = await verifyAuditLogFile(filePath, { missingIsEmpty: true });
    if (!report.ok) {
      const bad = report.first_bad_entry;
      const why = bad ? `audit log does not verify: ${bad.kind} at line ${bad.line}` : 'audit log does not verify';
      return new AuditLog(filePath, options.fsync, now, report.entries_checked, report.head_hash ?? GENESIS_HASH, why);
    }
    const log = new AuditLog(filePath, options.fsync, now, report.head_seq ?? 0, report.head_hash ?? GENESIS_HASH, undefined);
    try {
      log.#handle = await open(filePath, 'a', 0o600);
    } catch (err) {
      log.#problem = `audit log not writable: ${(err as NodeJS.ErrnoException).code ?? 'error'}`;
    }
    return log;
  }

  state(): AuditLogState {
    return { path: this.path, entries: this.#seq, headHash: this.#head, healthy: this.#problem === undefined, problem: this.#problem };
  }

  /** Appends one record; resolves with the chained entry once it is written (and synced, per policy). */
  append(record: AuditRecord): Promise<AuditEntry> {
    if (this.#problem !== undefined) return Promise.reject(new AuditLogUnavailableError(this.#problem));
    return new Promise<AuditEntry>((resolve, reject) => {
      this.#queue.push({ record, resolve, reject });
      this.#draining ??= this.#drain().finally(() => {
        this.#draining = undefined;
      });
    });
  }

  /** Waits for queued appends, then closes the file. */
  async close(): Promise<void> {
    while (this.#draining) await this.#draining;
    await this.#handle?.close();
    this.#handle = undefined;
    this.#problem ??= 'audit log closed';
  }

  async #drain(): Promise<void> {
    // Yield once so appends issued in the same tick join the first batch.
    await new Promise<void>((r) => setImmediate(r));
    while (this.#queue.length > 0) {
      const batch = this.#queue;
      this.#queue = [];
      await this.#commit(batch);
    }
  }

  async #commit(batch: Pending[]): Promise<void> {
    const handle = this.#handle;
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
    const text = entries.map((e) => `${JSON.stringify(e)}\n`).join('');
    try {
      await handle.write(text);
      if (this.#fsync === 'per_batch') await handle.datasync();
    } catch (err) {
      // A partial write leaves the file's tail unknown: stop appending for good.
      this.#problem = `audit log write failed: ${(err as NodeJS.ErrnoException).code ?? 'error'}`;
      const failure = new AuditLogUnavailableError(this.#problem, { cause: err });
      for (const p of batch) p.reject(failure);
      return;
    }
    this.#seq = seq;
    this.#head = head;
    batch.forEach((p, i) => p.resolve(entries[i]!));
  }
}
