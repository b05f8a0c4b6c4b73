/**
 * Garbage collection of packed chunks and abandoned multipart uploads
 * (docs/objects.md#garbage-collection, decision 116). One run:
 *
 * 1. **Mark.** Every manifest that must stay readable marks the stored forms
 *    it references: active and quarantined ones always, tombstoned ones
 *    within `gc.tombstone_retention_days` of the delete, and any manifest a
 *    legal hold covers. A tombstoned manifest past its retention (and not
 *    held) is marked `retention_expired` first: its rehydration is refused
 *    as such from then on, never reported as data loss.
 * 2. **Sweep, in two phases.** An index row nothing marked is *condemned*
 *    (ingest no longer deduplicates against it; a fresh copy replaces it);
 *    a row condemned at least `gc.grace_minutes` ago and still unmarked is
 *    deleted; a condemned row that is marked again is cleared. Rows indexed
 *    within the grace period are never condemned. So a chunk written after
 *    the mark started is never swept, and an ingest that deduplicated
 *    against a row just before it was condemned has the whole grace period
 *    to commit its manifest, which the next run then sees.
 * 3. **Packs.** A pack with no index row left is deleted (row, then bytes);
 *    one whose dead bytes reach `gc.repack_dead_ratio` is rewritten with its
 *    live entries, each verified against its SHA-256 first (a damaged entry
 *    stays where it is, reported). A pack older than
 *    `gc.recompress_after_minutes` whose chunks were compressed alone with
 *    zstd is rewritten with them in dense frames (`gc.recompress_level`,
 *    decision 207). Pack files with no pack row (a crash between the pack
 *    write and its row) are deleted once old.
 * 4. **Uploads.** Open multipart uploads idle for `gc.multipart_expiry_hours`
 *    are aborted and their parts discarded.
 *
 * Old-layout chunk files (one per chunk, written before packs) are never
 * deleted: they have no index row to condemn. `dryRun` reports what a run
 * would do and changes nothing. Each run is one `storage.gc_completed`
 * ledger event. One run at a time across processes (a lease row); a lease
 * left by a process that died is taken over at once by a process on the same
 * host (its pid is gone), else it expires 15 minutes after the last step.
 */
import { randomBytes } from 'node:crypto';
import { readlinkSync } from 'node:fs';
import os from 'node:os';
import { type Static, Type } from 'typebox';
import type { RequestContext } from '../context.ts';
import { requirePermission } from '../auth/principal.ts';
import type { ChunkScope } from '../chunk-store/chunk-scope.ts';
import type { PackedChunkStore } from '../chunk-store/packed-chunk-store.ts';
import type { SvcConfig } from '../config/schema.ts';
import { SvcError } from '../errors.ts';
import { validate } from '../validation.ts';
import type { LedgerAppender } from '../ledger/appender.ts';
import { holdCovers, type LegalHold } from '../legal-holds/legal-hold.ts';
import type { ByteManifest } from '../manifests/manifest.ts';
import type { ChunkPackRepository } from '../store/repositories/chunk-packs.ts';
import type { LeaseRepository } from '../store/repositories/leases.ts';
import { rewritePack } from './pack-rewrite.ts';

/** Body of `POST /v1/admin/gc`. */
export const GcRequest = Type.Object({ dry_run: Type.Optional(Type.Boolean()) }, { additionalProperties: false });
export type GcRequest = Static<typeof GcRequest>;

export interface GcOptions {
  dryRun?: boolean;
}

export interface GcReport {
  run_id: string;
  dry_run: boolean;
  started_at: string;
  finished_at: string;
  duration_ms: number;
  /** `packs` when packed chunks were collected; `files` when the store has no pack index (nothing to collect but uploads). */
  chunk_layout: 'packs' | 'files';
  manifests: { scanned: number; retained: number; retention_expired: number; held: number };
  chunks: { live: number; condemned: number; absolved: number; deleted: number; pending: number; bytes_deleted: number; bytes_condemned: number };
  /** `recompressed`: packs rewritten with their chunks in dense frames (in a dry run: packs that would be tried), `densified_chunks` the chunks moved into them. */
  packs: { scanned: number; deleted: number; repacked: number; recompressed: number; densified_chunks: number; orphans_deleted: number; damaged_entries_kept: number };
  /** Bytes of storage given back (or that would be): deleted and orphan packs, and what repacking and recompression saved (a dry run cannot know the latter: not counted). */
  bytes_freed: number;
  uploads: { expired: number; parts: number; bytes: number };
}

export interface GcDeps {
  config: Readonly<SvcConfig>;
  /** The packed chunk store (uncached); absent when chunks are stored one file each. */
  store: PackedChunkStore | undefined;
  index: ChunkPackRepository;
  /** One collection at a time across the processes on the database (lease `gc`). */
  leases: Pick<LeaseRepository, 'takeLease' | 'getLease' | 'takeOverLease' | 'releaseLease'>;
  manifests: {
    page(tenant: string | undefined, after: string, limit: number): Promise<ByteManifest[]>;
    markRetentionExpired(id: string): Promise<boolean>;
  };
  legalHolds: { active(tenant: string | undefined): Promise<LegalHold[]> };
  multipart: { expireAbandoned(ctx: RequestContext, before: string, options: { dryRun?: boolean }): Promise<Array<{ parts: number; bytes: number }>> };
  ledger: LedgerAppender;
  /** The clock (tests move it). */
  now?: () => Date;
}

const MANIFEST_PAGE = 500;
/** A pack is recompressed only if this many of its bytes (or a quarter of a smaller pack's) are chunks compressed alone. */
const RECOMPRESS_MIN_BYTES = 256 * 1024;
const INDEX_PAGE = 2000;
const LEASE = 'gc';
const LEASE_MS = 15 * 60_000;
/**
 * Pack files with no pack row younger than this are left alone whatever the
 * grace period: a pack is written before its row goes in, and a seal under
 * way must not lose its file.
 */
const ORPHAN_MIN_AGE_MS = 60 * 60_000;

/**
 * This process as a lease holder names it: `<host>/<pid namespace>/<pid>`.
 * Another process on the same host and in the same pid namespace can then
 * tell that the holder is gone (no such pid) and take the lease over instead
 * of waiting for it to expire. Undefined off Linux (no namespace to compare).
 */
export function processIdentity(): string | undefined {
  try {
    const ns = /\[(\d+)\]/.exec(readlinkSync('/proc/self/ns/pid'))?.[1];
    return ns ? `${os.hostname()}/${ns}/${process.pid}` : undefined;
  } catch {
    return undefined;
  }
}

/** True when `holder` names a process of this host and pid namespace that no longer exists. */
export function holderIsDead(holder: string, self: string | undefined = processIdentity()): boolean {
  const at = holder.indexOf('@');
  if (at < 0 || !self) return false;
  const [host, ns, pidText] = holder.slice(at + 1).split('/');
  const [myHost, myNs] = self.split('/');
  if (host !== myHost || ns !== myNs || !/^\d+$/.test(pidText ?? '')) return false;
  const pid = Number(pidText);
  if (pid === process.pid) return false; // this process: alive (another run of ours holds it)
  try {
    process.kill(pid, 0);
    return false; // exists (possibly a reused pid: then wait for the expiry, the safe side)
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/** `bucket/key` of an object-gateway logical ref (`s3://bucket/key`), the namespace legal holds name. */
function namespaceOfRef(logicalRef: string): string {
  const m = /^[a-z][a-z0-9+.-]*:\/\/(.*)$/i.exec(logicalRef);
  return m ? m[1]! : logicalRef;
}

export class GcService {
  readonly #d: GcDeps;
  constructor(deps: GcDeps) {
    this.#d = deps;
  }

  /** `POST /v1/admin/gc` and `svc gc`: the request body validated, then {@link run}. */
  runRequest(ctx: RequestContext, body: unknown): Promise<GcReport> {
    requirePermission(ctx.principal, 'storage:gc');
    const request = validate(GcRequest, body ?? {});
    return this.run(ctx, { dryRun: request.dry_run ?? false });
  }

  async run(ctx: RequestContext, options: GcOptions = {}): Promise<GcReport> {
    requirePermission(ctx.principal, 'storage:gc');
    if (ctx.principal.tenant !== undefined) throw new SvcError('forbidden', 'garbage collection spans every tenant: it needs a key that is not bound to a tenant');
    const dryRun = options.dryRun ?? false;
    const identity = processIdentity();
    const holder = `gc_${randomBytes(8).toString('hex')}${identity ? `@${identity}` : ''}`;
    const clock = this.#d.now ?? (() => new Date());
    const started = clock();
    if (!dryRun) await this.#acquire(holder, started);
    try {
      const report = await this.#collect(ctx, dryRun, started, clock, holder);
      await this.#d.ledger.append({
        type: 'storage.gc_completed',
        tenant: null,
        actor: ctx.principal.actor,
        trace_id: ctx.traceId,
        payload: { ...report },
      });
      return report;
    } finally {
      if (!dryRun) await this.#d.leases.releaseLease(LEASE, holder);
    }
  }

  /** Takes the lease, or takes it over from a holder that died on this host; conflict when a live run holds it. */
  async #acquire(holder: string, at: Date): Promise<void> {
    const leases = this.#d.leases;
    const until = new Date(at.getTime() + LEASE_MS).toISOString();
    for (let attempt = 0; attempt < 3; attempt++) {
      if (await leases.takeLease(LEASE, holder, at.toISOString(), until)) return;
      const current = await leases.getLease(LEASE);
      if (!current) continue; // released meanwhile: try again
      if (!holderIsDead(current.holder)) {
        throw new SvcError('conflict', `another garbage collection is running (lease held by ${current.holder} until ${current.expires_at}; it expires 15 minutes after its last step)`);
      }
      // Its process is gone (killed mid-run): nothing of that run continues, and every step it took is safe to follow.
      if (await leases.takeOverLease(LEASE, current.holder, holder, until)) return;
    }
    throw new SvcError('conflict', 'another garbage collection is starting (the lease changed hands while this run tried to take it)');
  }

  async #collect(ctx: RequestContext, dryRun: boolean, started: Date, clock: () => Date, holder: string): Promise<GcReport> {
    const gc = this.#d.config.gc;
    const nowIso = started.toISOString();
    const cutoff = new Date(started.getTime() - gc.grace_minutes * 60_000).toISOString();
    const report: GcReport = {
      run_id: `gcr_${randomBytes(10).toString('hex')}`,
      dry_run: dryRun,
      started_at: nowIso,
      finished_at: nowIso,
      duration_ms: 0,
      chunk_layout: this.#d.store ? 'packs' : 'files',
      manifests: { scanned: 0, retained: 0, retention_expired: 0, held: 0 },
      chunks: { live: 0, condemned: 0, absolved: 0, deleted: 0, pending: 0, bytes_deleted: 0, bytes_condemned: 0 },
      packs: { scanned: 0, deleted: 0, repacked: 0, recompressed: 0, densified_chunks: 0, orphans_deleted: 0, damaged_entries_kept: 0 },
      bytes_freed: 0,
      uploads: { expired: 0, parts: 0, bytes: 0 },
    };
    const renew = async () => {
      if (dryRun) return;
      const at = clock();
      if (!(await this.#d.leases.takeLease(LEASE, holder, at.toISOString(), new Date(at.getTime() + LEASE_MS).toISOString()))) {
        throw new SvcError('conflict', 'garbage collection lost its lease (it ran longer than the lease without renewing); nothing more was deleted');
      }
    };

    if (this.#d.store) {
      const live = await this.#mark(report, dryRun, started);
      await renew();
      await this.#sweepIndex(report, live, dryRun, nowIso, cutoff);
      await renew();
      await this.#sweepPacks(report, dryRun, started, cutoff, renew);
    }
    if (gc.multipart_expiry_hours !== null) {
      const before = new Date(started.getTime() - gc.multipart_expiry_hours * 3_600_000).toISOString();
      const expired = await this.#d.multipart.expireAbandoned(ctx, before, { dryRun });
      report.uploads = { expired: expired.length, parts: expired.reduce((n, u) => n + u.parts, 0), bytes: expired.reduce((n, u) => n + u.bytes, 0) };
    }
    const finished = clock();
    report.finished_at = finished.toISOString();
    report.duration_ms = finished.getTime() - started.getTime();
    return report;
  }

  /** The stored forms (`scope/id.codec`) retained manifests reference. */
  async #mark(report: GcReport, dryRun: boolean, started: Date): Promise<Set<string>> {
    const retentionDays = this.#d.config.gc.tombstone_retention_days;
    const expiredBefore = retentionDays === null ? undefined : new Date(started.getTime() - retentionDays * 86_400_000).toISOString();
    const holds = await this.#d.legalHolds.active(undefined);
    const live = new Set<string>();
    let after = '';
    for (;;) {
      const page = await this.#d.manifests.page(undefined, after, MANIFEST_PAGE);
      if (page.length === 0) break;
      for (const m of page) {
        report.manifests.scanned++;
        const held = holds.some((h) => holdCovers(h, { tenant: m.tenant, namespace: namespaceOfRef(m.logical_ref), manifestId: m.manifest_id }));
        if (held) report.manifests.held++;
        const expired = m.state === 'tombstoned' && (m.state_reason === 'retention_expired' || (expiredBefore !== undefined && m.updated_at < expiredBefore));
        if (expired && !held) {
          report.manifests.retention_expired++;
          if (!dryRun && m.state_reason !== 'retention_expired') await this.#d.manifests.markRetentionExpired(m.manifest_id);
          continue;
        }
        report.manifests.retained++;
        for (const c of m.chunks) live.add(`${m.chunk_scope}/${c.id}.${c.codec}`);
      }
      after = page[page.length - 1]!.manifest_id;
    }
    return live;
  }

  async #sweepIndex(report: GcReport, live: Set<string>, dryRun: boolean, nowIso: string, cutoff: string): Promise<void> {
    const index = this.#d.index;
    let after: { scope: string; chunk_id: string; codec: string } | undefined;
    for (;;) {
      const rows = await index.listEntries(after, INDEX_PAGE);
      if (rows.length === 0) break;
      const page: Parameters<ChunkPackRepository['sweepPage']>[1] = { condemn: [], absolve: [], remove: [] };
      for (const r of rows) {
        if (live.has(`${r.scope}/${r.chunk_id}.${r.codec}`)) {
          report.chunks.live++;
          if (r.condemned_at !== null) page.absolve.push(r);
        } else if (r.condemned_at === null) {
          // Young rows may belong to an ingest that has not committed its manifest yet.
          if (r.created_at > cutoff) report.chunks.live++;
          else page.condemn.push(r);
        } else if (r.condemned_at <= cutoff) {
          page.remove.push({ ...r, condemned_at: r.condemned_at });
        } else {
          report.chunks.pending++;
        }
      }
      // Each change is conditional, so a row an ingest replaced meanwhile (condemnation cleared) is left alone.
      const applied = dryRun ? { condemned: page.condemn, removed: page.remove } : await index.sweepPage(nowIso, page);
      report.chunks.absolved += page.absolve.length;
      report.chunks.condemned += applied.condemned.length;
      report.chunks.bytes_condemned += applied.condemned.reduce((n, r) => n + r.stored_length, 0);
      report.chunks.deleted += applied.removed.length;
      report.chunks.bytes_deleted += applied.removed.reduce((n, r) => n + r.stored_length, 0);
      const last = rows[rows.length - 1]!;
      after = { scope: last.scope, chunk_id: last.chunk_id, codec: last.codec };
    }
  }

  async #sweepPacks(report: GcReport, dryRun: boolean, started: Date, cutoff: string, renew: () => Promise<void>): Promise<void> {
    const store = this.#d.store!;
    const index = this.#d.index;
    const gc = this.#d.config.gc;
    // A pack row and its index rows go in in one transaction, so an empty pack is never one being recorded;
    // packs younger than the grace period are still left alone (they are all but always live).
    const packCutoff = cutoff;
    const recompressCutoff = new Date(started.getTime() - gc.recompress_after_minutes * 60_000).toISOString();
    const usage = await index.packUsage();
    const known = new Set(usage.map((p) => p.pack_id));
    // In a dry run, the rows this run would delete still count as live in the usage figures: subtract nothing, report a lower bound.
    for (const p of usage) {
      report.packs.scanned++;
      const scope = p.scope as ChunkScope;
      const old = p.created_at <= packCutoff;
      if (old && p.live_entries === 0) {
        if (dryRun || (await index.deletePackIfEmpty(p.pack_id))) {
          if (!dryRun) await store.packs.delete(scope, p.pack_id);
          report.packs.deleted++;
          report.bytes_freed += p.size_bytes;
        }
        continue;
      }
      const dead = p.size_bytes - p.live_bytes;
      const dropsDead = old && dead / p.size_bytes >= gc.repack_dead_ratio;
      // Packs written with frames (storage.frame_codec) are dense already; one rewritten here has no loose zstd chunk left.
      const densify =
        gc.recompress_level > 0 &&
        !p.recompressed_at &&
        p.created_at <= recompressCutoff &&
        p.framed_entries === 0 &&
        p.loose_zstd_bytes > 0 &&
        p.loose_zstd_bytes >= Math.min(RECOMPRESS_MIN_BYTES, p.live_bytes / 4);
      if (!dropsDead && !densify) continue;
      if (dryRun) {
        if (dropsDead) report.packs.repacked++;
        if (densify) report.packs.recompressed++;
        if (dropsDead) report.bytes_freed += dead;
        continue;
      }
      const dense = { level: gc.recompress_level, frameBytes: gc.recompress_frame_bytes };
      const rewrite = await rewritePack(store, index, scope, p.pack_id, p.size_bytes, {
        ...(densify ? { densify: dense } : {}),
        // The frames of a pack recompression wrote are framed again as densely (else with the store's frame codec).
        reframe: p.recompressed_at && gc.recompress_level > 0 ? { codec: 'zstd', ...dense } : { codec: store.frameCodec === 'none' ? 'zstd' : store.frameCodec, frameBytes: store.frameTargetBytes },
        dropsDead,
        recompressedAt: p.recompressed_at ?? null,
      });
      report.packs.damaged_entries_kept += rewrite.damagedEntries;
      if (rewrite.rewritten && dropsDead) report.packs.repacked++;
      if (rewrite.densifiedChunks > 0) report.packs.recompressed++;
      report.packs.densified_chunks += rewrite.densifiedChunks;
      report.bytes_freed += rewrite.savedBytes;
      await renew();
    }
    // Pack files nothing knows about: a crash between writing a pack and recording it.
    const orphanBefore = started.getTime() - Math.max(ORPHAN_MIN_AGE_MS, this.#d.config.gc.grace_minutes * 60_000);
    const scopes = new Set<ChunkScope>([...(await store.packs.scopes()), ...usage.map((p) => p.scope as ChunkScope)]);
    for (const scope of scopes) {
      for (const f of await store.packs.list(scope)) {
        if (known.has(f.packId) || f.modified.getTime() >= orphanBefore) continue;
        if (await index.getPack(f.packId)) continue; // recorded since the usage was read
        if (!dryRun) await store.packs.delete(scope, f.packId);
        report.packs.orphans_deleted++;
        report.bytes_freed += f.size;
      }
    }
  }
}
