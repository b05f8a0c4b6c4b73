/**
 * `svc chunks migrate` (POST /v1/admin/chunks/migrate): copies chunks of the
 * old one-file-per-chunk layout into packs (docs/chunking.md#migrating-the-old-layout).
 *
 * Chunks of the old layout are read as they are without migrating (reads
 * fall back to it); migrating turns thousands of small files (S3 objects)
 * into a few packs that garbage collection can manage. Crash-safe and
 * idempotent:
 *
 * 1. each old file is read and verified against its SHA-256 (a damaged one is
 *    left where it is and reported, for restore tests to find);
 * 2. it is put through a pack writer of the store's public API that ignores
 *    the old layout (a form already indexed is not written again);
 * 3. the writer's flush makes the packs durable and their index rows
 *    committed; only then are the old files of that batch removed, each one
 *    only if the index names its form.
 *
 * A crash before 3 leaves the old files (and perhaps a pack no row names,
 * which GC deletes); a rerun packs them again. A crash during 3 leaves some
 * old files whose form is indexed; a rerun finds them packed and removes
 * them. `dry_run` lists and counts, changing nothing. Each run, dry or not,
 * is one `storage.chunks_migrated` ledger event.
 */
import { randomBytes } from 'node:crypto';
import { type Static, Type } from 'typebox';
import { requirePermission } from '../auth/principal.ts';
import type { RequestContext } from '../context.ts';
import { SvcError } from '../errors.ts';
import type { LedgerAppender } from '../ledger/appender.ts';
import { validate } from '../validation.ts';
import type { ListedChunk } from './chunk-key.ts';
import type { ChunkScope } from './chunk-scope.ts';
import type { PackedChunkStore } from './packed-chunk-store.ts';
import { decodeVerifiedChunk } from './verify-chunk.ts';

/** Body of `POST /v1/admin/chunks/migrate`. */
export const ChunkMigrationRequest = Type.Object({ dry_run: Type.Optional(Type.Boolean()) }, { additionalProperties: false });
export type ChunkMigrationRequest = Static<typeof ChunkMigrationRequest>;

export interface ChunkMigrationReport {
  run_id: string;
  dry_run: boolean;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  /** Old-layout files (objects) found, and their bytes. */
  found: { files: number; bytes: number; scopes: number };
  /** Copied into packs by this run (a dry run: would be). */
  migrated: { chunks: number; bytes: number };
  /** Already indexed in a pack (an earlier run stopped before removing the file, or a writer packed the same chunk). */
  already_packed: number;
  /** Old files removed after their pack and index were durable. */
  removed: number;
  /** Old files that failed verification: left in place. */
  damaged: Array<{ scope: string; chunk_id: string; codec: string; reason: string }>;
}

export interface ChunkMigrationDeps {
  /** The packed store; undefined when chunks are stored one file each (`storage.chunk_layout: files`, or no database). */
  store: PackedChunkStore | undefined;
  ledger: LedgerAppender;
}

/** Bytes read into one batch before its packs are flushed and its old files removed (bounds memory). */
const BATCH_BYTES = 32 * 1024 * 1024;
const DAMAGED_LISTED = 100;

export class ChunkMigrationService {
  readonly #d: ChunkMigrationDeps;
  constructor(deps: ChunkMigrationDeps) {
    this.#d = deps;
  }

  runRequest(ctx: RequestContext, body: unknown): Promise<ChunkMigrationReport> {
    requirePermission(ctx.principal, 'storage:gc');
    const request = validate(ChunkMigrationRequest, body ?? {});
    return this.run(ctx, { dryRun: request.dry_run ?? false });
  }

  async run(ctx: RequestContext, options: { dryRun?: boolean } = {}): Promise<ChunkMigrationReport> {
    requirePermission(ctx.principal, 'storage:gc');
    if (ctx.principal.tenant !== undefined) throw new SvcError('forbidden', 'migrating the chunk store spans every tenant: it needs a key that is not bound to a tenant');
    const store = this.#d.store;
    if (!store) throw new SvcError('conflict', 'chunks are stored one file each (storage.chunk_layout: files, or no database): there are no packs to migrate into');
    const legacy = store.legacy;
    const dryRun = options.dryRun ?? false;
    const started = new Date();
    const report: ChunkMigrationReport = {
      run_id: `cmr_${randomBytes(10).toString('hex')}`,
      dry_run: dryRun,
      started_at: started.toISOString(),
      finished_at: started.toISOString(),
      duration_ms: 0,
      found: { files: 0, bytes: 0, scopes: 0 },
      migrated: { chunks: 0, bytes: 0 },
      already_packed: 0,
      removed: 0,
      damaged: [],
    };
    if (legacy?.listChunks) {
      const scopes = new Set<ChunkScope>();
      let batch: ListedChunk[] = [];
      let batchBytes = 0;
      let writer = store.openWriter({ packOnly: true });
      for await (const c of legacy.listChunks()) {
        report.found.files++;
        report.found.bytes += c.size;
        scopes.add(c.scope);
        if (await store.index.locate(c.scope, c.id, c.codec)) {
          // Packed already: only the old file is left to remove.
          report.already_packed++;
          if (!dryRun && (await legacy.delete(c.scope, c.id, c.codec))) report.removed++;
          continue;
        }
        let stored: Uint8Array;
        try {
          stored = await legacy.readStored(c.scope, c.id, c.codec);
          await decodeVerifiedChunk(c.id, c.codec, stored, undefined);
        } catch (err) {
          if (report.damaged.length < DAMAGED_LISTED) report.damaged.push({ scope: c.scope, chunk_id: c.id, codec: c.codec, reason: err instanceof SvcError ? String(err.details?.['reason'] ?? err.code) : 'unreadable' });
          continue;
        }
        report.migrated.chunks++;
        report.migrated.bytes += stored.byteLength;
        if (dryRun) continue;
        await writer.put(c.scope, c.id, c.codec, stored);
        batch.push(c);
        batchBytes += stored.byteLength;
        if (batchBytes >= BATCH_BYTES) {
          report.removed += await this.#commit(store, writer, batch);
          writer = store.openWriter({ packOnly: true });
          batch = [];
          batchBytes = 0;
        }
      }
      if (!dryRun) report.removed += await this.#commit(store, writer, batch);
      report.found.scopes = scopes.size;
      if (!dryRun) for (const scope of scopes) store.forgetLegacyScope(scope);
    }
    const finished = new Date();
    report.finished_at = finished.toISOString();
    report.duration_ms = finished.getTime() - started.getTime();
    await this.#d.ledger.append({ type: 'storage.chunks_migrated', tenant: null, actor: ctx.principal.actor, trace_id: ctx.traceId, payload: { ...report } });
    return report;
  }

  /** Makes the batch's packs durable and indexed, then removes the old files the index now covers. */
  async #commit(store: PackedChunkStore, writer: ReturnType<PackedChunkStore['openWriter']>, batch: readonly ListedChunk[]): Promise<number> {
    await writer.flush();
    let removed = 0;
    for (const c of batch) {
      if (!(await store.index.locate(c.scope, c.id, c.codec))) continue; // not indexed (cannot happen after a flush that resolved): keep the file
      if (await store.legacy!.delete(c.scope, c.id, c.codec)) removed++;
    }
    await store.legacy!.flush();
    return removed;
  }
}
