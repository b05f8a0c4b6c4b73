/**
 * Manifests as a service: write (after an exact-bytes execution), read, list,
 * explore, state changes, and rehydration with its failure handling — a
 * missing or corrupt chunk quarantines the manifest, writes an incident to
 * the ledger, raises an alert and surfaces as `rehydration_failed` (bound to
 * the manifest's work unit and policy bundle).
 *
 * AI compute manifests (written by the AI gateway, their own table) are
 * read, listed and explored here too; they store no bytes, so rehydrating
 * one is a `conflict` that says what they are for (docs/decisions/016).
 */
import { newId } from '../../core/ids.ts';
import { VerifiedChunkCache } from '../chunk-store/verified-chunk-cache.ts';
import { requirePermission } from '../auth/principal.ts';
import type { TenantGuard } from '../auth/tenant-guard.ts';
import type { ChunkScope } from '../chunk-store/chunk-scope.ts';
import { parseChunkScope } from '../chunk-store/chunk-scope.ts';
import type { ChunkStore } from '../chunk-store/chunk-store.ts';
import { ReadBuffers } from '../chunk-store/read-buffers.ts';
import type { RequestContext } from '../context.ts';
import { SvcError } from '../errors.ts';
import { chunkListSha256 } from '../exact-bytes/chunk-list-digest.ts';
import type { IngestResult } from '../exact-bytes/ingest.ts';
import type { Rehydration } from '../exact-bytes/rehydrate.ts';
import { openRehydration } from '../exact-bytes/rehydrate.ts';
import type { LedgerAppender } from '../ledger/appender.ts';
import type { OpLog } from '../logs/oplog.ts';
import type { SvcMetrics } from '../observability/metrics.ts';
import type { Tracing } from '../observability/tracing.ts';
import { inSpan, namespaceOf, openSpan, tenantHash } from '../observability/tracing.ts';
import type { AiComputeManifest } from '../ai/gateway/ports.ts';
import type { AiManifestAggregateRow, AiManifestListFilter, AiManifestListRow } from '../store/repositories/ai-manifests.ts';
import type { ManifestRepository } from '../store/repositories/manifests.ts';
import { type ComputeManifestSummary, computeManifestSummary, mergeById } from './compute-manifest-view.ts';
import { validate } from '../validation.ts';
import type { ByteManifest, ManifestState, ManifestSummary, RedactedManifestRow } from './manifest.ts';
import { recordByteMetrics } from './byte-metrics.ts';
import { MANIFEST_SCHEMA_VERSION, MANIFEST_TRANSITIONS, ManifestListQuery, RehydrateRequest, redactedRow } from './manifest.ts';

/** Where compute manifests of AI work units live (their own table, written by the AI gateway). */
export interface ComputeManifestSource {
  get(id: string): Promise<AiComputeManifest | undefined>;
  list(filter: AiManifestListFilter): Promise<AiManifestListRow[]>;
  aggregates(tenant: string | undefined): Promise<AiManifestAggregateRow[]>;
}

export interface ManifestServiceDeps {
  repo: ManifestRepository;
  /** AI compute manifests: get, list and explore show them next to byte-object manifests. */
  computeManifests?: ComputeManifestSource;
  tracing?: Tracing;
  chunks: ChunkStore;
  ledger: LedgerAppender;
  tenants: TenantGuard;
  log: OpLog;
  metrics: SvcMetrics;
}

/** What an execution hands over to be recorded. */
export interface ManifestWriteInput {
  workUnitId: string;
  planId: string | null;
  tenant: string;
  logicalRef: string;
  contract: string;
  policyBundleId: string | null;
  scope: ChunkScope;
  appliedActions: string[];
  ingest: IngestResult;
}

export interface ManifestListResult {
  manifests: Array<ManifestSummary | ComputeManifestSummary | RedactedManifestRow>;
  next_cursor: string | null;
}

export interface ExploreResult {
  tenant: string | null;
  totals: { manifests: number; bytes_in: number; bytes_stored: number };
  by_kind: Record<string, number>;
  by_contract: Record<string, number>;
  by_state: Record<string, number>;
  rows: RedactedManifestRow[];
}

/** Explorer rows: the newest manifests. */
const EXPLORE_ROWS = 50;

export class ManifestService {
  readonly #deps: ManifestServiceDeps;
  /** Chunk buffers lent to whole-object reads whose reader writes each piece out before the next (decision 173). */
  readonly #readBuffers = new ReadBuffers();
  constructor(deps: ManifestServiceDeps) {
    this.#deps = deps;
  }

  /** Records an execution's manifest and appends `manifest.written`. */
  async write(ctx: RequestContext, input: ManifestWriteInput): Promise<ByteManifest> {
    const started = performance.now();
    const { ingest } = input;
    const now = new Date().toISOString();
    const manifest: ByteManifest = {
      manifest_id: newId('mf'),
      schema_version: MANIFEST_SCHEMA_VERSION,
      kind: 'byte_object',
      work_unit_id: input.workUnitId,
      plan_id: input.planId,
      tenant: input.tenant,
      logical_ref: input.logicalRef,
      contract: input.contract,
      mode: ingest.mode,
      state: 'active',
      sha256: ingest.sha256,
      bytes_in: ingest.bytes_in,
      bytes_stored: ingest.bytes_stored,
      chunk_scope: input.scope,
      chunking: ingest.chunking,
      chunks: ingest.chunks.map(({ reused: _reused, ...ref }) => ref),
      chunk_list_sha256: chunkListSha256(ingest.chunks),
      applied_actions: input.appliedActions,
      verifier_status: 'unverified',
      cache_result: 'not_applicable',
      stats: {
        chunks_new: ingest.stats.chunks_new,
        chunks_reused: ingest.stats.chunks_reused,
        bytes_deduplicated: ingest.stats.bytes_deduplicated,
        bytes_saved_by_compression: ingest.stats.bytes_saved_by_compression,
        would_store_bytes: ingest.stats.would_store_bytes,
        detected_format: ingest.stats.detected_format,
      },
      trace_id: ctx.traceId,
      policy_bundle_id: input.policyBundleId,
      created_at: now,
      updated_at: now,
      state_reason: null,
    };
    try {
      await this.#deps.repo.insert(manifest);
    } catch (err) {
      this.#deps.metrics.manifestWriteFailures.inc();
      throw err;
    }
    this.#deps.metrics.manifestWriteSeconds.observe((performance.now() - started) / 1000);
    recordByteMetrics(this.#deps.metrics, manifest);
    await this.#deps.ledger.append({
      type: 'manifest.written',
      tenant: manifest.tenant,
      actor: ctx.principal.actor,
      work_unit_id: manifest.work_unit_id,
      manifest_id: manifest.manifest_id,
      policy_bundle_id: manifest.policy_bundle_id,
      trace_id: ctx.traceId,
      payload: {
        kind: manifest.kind,
        contract: manifest.contract,
        mode: manifest.mode,
        sha256: manifest.sha256,
        bytes_in: manifest.bytes_in,
        bytes_stored: manifest.bytes_stored,
        chunk_count: manifest.chunks.length,
        chunk_list_sha256: manifest.chunk_list_sha256,
        chunks_reused: manifest.stats.chunks_reused,
        plan_id: manifest.plan_id,
      },
    });
    return manifest;
  }

  /** A byte-object manifest the caller may see; other tenants' manifests are reported as not found. */
  async get(ctx: RequestContext, id: string): Promise<ByteManifest> {
    requirePermission(ctx.principal, 'work_units:read');
    return this.#visible(ctx, id);
  }

  /**
   * Any manifest by id: a byte-object manifest, or else an AI compute
   * manifest (`GET /v1/manifests/{id}` serves both kinds).
   */
  async getAny(ctx: RequestContext, id: string): Promise<ByteManifest | { tenant: string }> {
    requirePermission(ctx.principal, 'work_units:read');
    const byteManifest = await this.#deps.repo.get(id);
    const found = byteManifest ?? (await this.#deps.computeManifests?.get(id));
    if (!found || (ctx.principal.tenant !== undefined && found.tenant !== ctx.principal.tenant)) {
      throw new SvcError('manifest_not_found', `manifest ${id} not found`, { details: { manifest_id: id } });
    }
    return found;
  }

  async list(ctx: RequestContext, rawQuery: unknown): Promise<ManifestListResult> {
    requirePermission(ctx.principal, 'work_units:read');
    const q = validate(ManifestListQuery, rawQuery);
    const tenant = await this.#deps.tenants.filter(ctx, q.tenant, 'manifests.list.tenant');
    const states: ManifestState[] = q.state ? [q.state] : q.include_tombstoned ? ['active', 'quarantined', 'tombstoned'] : ['active', 'quarantined'];
    const limit = q.limit ?? 100;
    const byteRows = await this.#deps.repo.list({ tenant, logicalRef: q.logical_ref, states, after: q.cursor, limit });
    // Compute manifests are always `active`; one page of each kind, merged by id, keeps the cursor exact.
    const computeRows = states.includes('active') ? await this.#computeSummaries({ tenant, logicalRef: q.logical_ref, after: q.cursor, limit }) : [];
    const rows = mergeById<ManifestSummary | ComputeManifestSummary>(byteRows, computeRows, limit);
    return {
      manifests: q.redacted ? rows.map(redactedRow) : rows,
      next_cursor: rows.length === limit ? rows[rows.length - 1]!.manifest_id : null,
    };
  }

  /** Aggregate counts by kind, contract and state, plus redacted rows of the latest manifests. */
  async explore(ctx: RequestContext, requestedTenant: string | undefined): Promise<ExploreResult> {
    requirePermission(ctx.principal, 'work_units:read');
    const tenant = await this.#deps.tenants.filter(ctx, requestedTenant, 'manifests.explore.tenant');
    const computeAggregates = (await this.#deps.computeManifests?.aggregates(tenant)) ?? [];
    const aggregates = [
      ...(await this.#deps.repo.aggregates(tenant)),
      ...computeAggregates.map((a) => ({ kind: a.kind, contract: a.contract, state: 'active', count: a.count, bytes_in: 0, bytes_stored: 0 })),
    ];
    const result: ExploreResult = {
      tenant: tenant ?? null,
      totals: { manifests: 0, bytes_in: 0, bytes_stored: 0 },
      by_kind: {},
      by_contract: {},
      by_state: {},
      rows: [],
    };
    for (const a of aggregates) {
      result.totals.manifests += a.count;
      result.totals.bytes_in += a.bytes_in;
      result.totals.bytes_stored += a.bytes_stored;
      result.by_kind[a.kind] = (result.by_kind[a.kind] ?? 0) + a.count;
      result.by_contract[a.contract] = (result.by_contract[a.contract] ?? 0) + a.count;
      result.by_state[a.state] = (result.by_state[a.state] ?? 0) + a.count;
    }
    const latestBytes = await this.#deps.repo.list({ tenant, states: ['active', 'quarantined', 'tombstoned'], limit: EXPLORE_ROWS, newestFirst: true });
    const latestCompute = await this.#computeSummaries({ tenant, limit: EXPLORE_ROWS, newestFirst: true });
    result.rows = mergeById<ManifestSummary | ComputeManifestSummary>(latestBytes, latestCompute, EXPLORE_ROWS, true).map(redactedRow);
    return result;
  }

  /**
   * Opens a verified stream of a manifest's bytes (whole or a range). A
   * failure — at open or later in the stream — quarantines the manifest.
   */
  async rehydrate(ctx: RequestContext, id: string, rawRequest: unknown = {}, options: { borrowBuffers?: boolean } = {}): Promise<{ manifest: ByteManifest; rehydration: Rehydration }> {
    requirePermission(ctx.principal, 'work_units:read');
    const request = validate(RehydrateRequest, rawRequest ?? {});
    const manifest = await this.#visible(ctx, id, { rehydrating: true });
    return { manifest, rehydration: await this.openVerified(ctx, manifest, request.range, options) };
  }

  /**
   * A whole rehydration read from the chunk store itself, past the in-memory
   * verified-chunk cache (restore tests: they must find a chunk damaged on
   * disk even while a verified copy sits in memory). Failures take the same
   * path as a user's: quarantine, incident event, critical alert.
   */
  async restoreFromStorage(ctx: RequestContext, id: string): Promise<Rehydration> {
    requirePermission(ctx.principal, 'work_units:read');
    const manifest = await this.#visible(ctx, id, { rehydrating: true });
    return this.openVerified(ctx, manifest, undefined, { fromStorage: true });
  }

  async #computeSummaries(filter: AiManifestListFilter): Promise<ComputeManifestSummary[]> {
    const rows = (await this.#deps.computeManifests?.list(filter)) ?? [];
    return rows.map((r) => computeManifestSummary(r.manifest, r.logical_ref));
  }

  /**
   * Rehydration of a manifest already authorised by the caller (object gateway get/range).
   * `borrowBuffers`: the caller writes each piece out before it asks for the next and keeps none
   * (rehydrate.ts `borrow`; the HTTP byte response does): whole objects and ranges then reuse its buffers (decisions 173, 195).
   */
  async openVerified(ctx: RequestContext, manifest: ByteManifest, range?: RehydrateRequest['range'], options: { fromStorage?: boolean; borrowBuffers?: boolean } = {}): Promise<Rehydration> {
    if (manifest.state === 'tombstoned' && manifest.state_reason === 'retention_expired') {
      // Garbage collection may have collected its chunks (docs/objects.md#garbage-collection): that is the
      // documented end of a deleted object, not data loss, so no quarantine and no incident.
      throw new SvcError('not_found', `manifest ${manifest.manifest_id} was deleted and its retention has expired; its bytes may have been garbage-collected`, {
        details: { manifest_id: manifest.manifest_id, reason: 'retention_expired' },
      }).withContext({ workUnitId: manifest.work_unit_id, policyBundleId: manifest.policy_bundle_id ?? undefined });
    }
    const started = performance.now();
    const scope = parseChunkScope(manifest.chunk_scope);
    let opened: Rehydration;
    const store = options.fromStorage && this.#deps.chunks instanceof VerifiedChunkCache ? this.#deps.chunks.storage : this.#deps.chunks;
    const open = () =>
      openRehydration(manifest.chunks, {
        store,
        scope,
        range,
        expectedSha256: manifest.sha256,
        ...(manifest.chunk_list_sha256 ? { expectedChunkListSha256: manifest.chunk_list_sha256 } : {}),
        ...(options.borrowBuffers ? { borrow: this.#readBuffers } : {}),
      });
    const attributes = { manifest_id: manifest.manifest_id, work_unit_id: manifest.work_unit_id, tenant_hash: tenantHash(manifest.tenant), namespace: namespaceOf(manifest.logical_ref), contract: manifest.contract, mode: manifest.mode, policy_bundle_id: manifest.policy_bundle_id };
    // Chunk hashes and the whole-object digest are checked as the stream flows; svc.verify ends with it.
    let verify: ReturnType<typeof openSpan> = undefined;
    // Errors below (chunk store, range checks) do not know the work unit; the client's error body must (issue 10, defect 13).
    const bound = (err: unknown) => (err instanceof SvcError ? err.withContext({ workUnitId: manifest.work_unit_id, policyBundleId: manifest.policy_bundle_id ?? undefined }) : err);
    try {
      opened = await inSpan('svc.rehydrate', attributes, async () => {
        verify = openSpan('svc.verify', { ...attributes, action: range ? 'verify_chunks' : 'verify_object' });
        return open();
      });
    } catch (err) {
      endVerify(verify, 'failed');
      await this.#onFailure(ctx, manifest, err);
      throw bound(err);
    }
    const onFailure = (err: unknown) => {
      endVerify(verify, 'failed');
      return this.#onFailure(ctx, manifest, err);
    };
    const onWholeSuccess = async () => {
      endVerify(verify, 'passed');
      this.#deps.metrics.rehydrationSeconds.observe((performance.now() - started) / 1000);
      if (!opened.range && manifest.verifier_status !== 'passed') await this.#deps.repo.setVerifierStatus(manifest.manifest_id, 'passed');
    };
    return { ...opened, stream: watchStream(opened.stream, opened.contentLength, onWholeSuccess, onFailure, bound) };
  }

  /** Tombstones a manifest (object delete allowed by policy); a quarantined one cannot be. */
  async tombstone(ctx: RequestContext, manifest: ByteManifest, reason: string): Promise<void> {
    await this.#transition(ctx, manifest, 'tombstoned', reason);
  }

  /** Operator release of a quarantined manifest after its chunks were repaired (verified by a full rehydration first). */
  async release(ctx: RequestContext, id: string): Promise<ByteManifest> {
    requirePermission(ctx.principal, 'admin:switches');
    const manifest = await this.#visible(ctx, id);
    if (manifest.state !== 'quarantined') throw new SvcError('conflict', `manifest ${id} is ${manifest.state}, not quarantined`);
    const r = await openRehydration(manifest.chunks, { store: this.#deps.chunks, scope: parseChunkScope(manifest.chunk_scope), expectedSha256: manifest.sha256 });
    for await (const _ of r.stream);
    await this.#transition(ctx, manifest, 'active', 'released_after_verification');
    await this.#deps.repo.setVerifierStatus(id, 'passed');
    return this.#visible(ctx, id);
  }

  async #transition(ctx: RequestContext, manifest: ByteManifest, to: ManifestState, reason: string): Promise<void> {
    const from = (Object.keys(MANIFEST_TRANSITIONS) as ManifestState[]).filter((s) => MANIFEST_TRANSITIONS[s].includes(to));
    if (!from.includes(manifest.state)) {
      throw new SvcError('conflict', `manifest ${manifest.manifest_id} cannot go from ${manifest.state} to ${to}`, {
        details: { manifest_id: manifest.manifest_id, state: manifest.state, requested_state: to },
      });
    }
    if (!(await this.#deps.repo.transition(manifest.manifest_id, [manifest.state], to, reason))) {
      throw new SvcError('conflict', `manifest ${manifest.manifest_id} changed state concurrently; retry`, { retryable: true });
    }
    await this.#deps.ledger.append({
      type: 'manifest.state_changed',
      tenant: manifest.tenant,
      actor: ctx.principal.actor,
      work_unit_id: manifest.work_unit_id,
      manifest_id: manifest.manifest_id,
      trace_id: ctx.traceId,
      payload: { from: manifest.state, to, reason },
    });
  }

  async #onFailure(ctx: RequestContext, manifest: ByteManifest, err: unknown): Promise<void> {
    if (!(err instanceof SvcError) || err.code !== 'rehydration_failed') return;
    const details = err.details ?? {};
    this.#deps.metrics.verifierFailures.inc({ verifier: 'rehydration' });
    const quarantined = manifest.state !== 'quarantined' && (await this.#deps.repo.transition(manifest.manifest_id, ['active', 'tombstoned'], 'quarantined', String(details['reason'] ?? 'rehydration_failed')));
    await this.#deps.repo.setVerifierStatus(manifest.manifest_id, 'failed');
    await this.#deps.ledger.append({
      type: 'incident.rehydration_failed',
      tenant: manifest.tenant,
      actor: ctx.principal.actor,
      work_unit_id: manifest.work_unit_id,
      manifest_id: manifest.manifest_id,
      policy_bundle_id: manifest.policy_bundle_id,
      trace_id: ctx.traceId,
      payload: {
        severity: 'critical',
        reason: details['reason'] ?? null,
        chunk_id: details['chunk_id'] ?? null,
        previous_state: manifest.state,
        quarantined,
        lifecycle_deletion_blocked: true,
      },
    });
    this.#deps.log.alert(
      { event_type: 'rehydration.failed', tenant: manifest.tenant, manifest_id: manifest.manifest_id, work_unit_id: manifest.work_unit_id, trace_id: ctx.traceId, error_code: 'rehydration_failed', chunk_id: details['chunk_id'] },
      'exact rehydration failed; manifest quarantined',
    );
  }

  async #visible(ctx: RequestContext, id: string, options: { rehydrating?: boolean } = {}): Promise<ByteManifest> {
    const manifest = await this.#deps.repo.get(id);
    const visible = (m: { tenant: string } | undefined) => m !== undefined && (ctx.principal.tenant === undefined || m.tenant === ctx.principal.tenant);
    if (!manifest || !visible(manifest)) {
      const compute = options.rehydrating ? await this.#deps.computeManifests?.get(id) : undefined;
      if (compute && visible(compute)) throw notRehydratable(compute);
      throw new SvcError('manifest_not_found', `manifest ${id} not found`, { details: { manifest_id: id } });
    }
    return manifest;
  }
}

/**
 * Rehydrating an AI compute manifest: it exists and the caller may read it,
 * but it holds no bytes — a conflict with what the manifest is, not a
 * missing one (docs/decisions/016).
 */
function notRehydratable(m: AiComputeManifest): SvcError {
  return new SvcError(
    'conflict',
    `manifest ${m.manifest_id} is an AI compute manifest (${m.kind}): it records how a request was answered — route, cache result, verifier, fallback, tokens and the SHA-256 of the answer — but stores no bytes, so it cannot be rehydrated. Read it with GET /v1/manifests/${m.manifest_id}; it is listed by GET /v1/manifests and counted by /v1/manifests/explore.`,
    {
      workUnitId: m.work_unit_id,
      policyBundleId: m.policy_bundle_id,
      details: { manifest_id: m.manifest_id, manifest_kind: 'compute', kind: m.kind, can: ['get', 'list', 'explore'], cannot: ['rehydrate', 'export', 'tombstone', 'release'] },
    },
  );
}

/**
 * Passes a stream through, calling `onError` (then rethrowing) on failure and
 * `onEnd` after a clean end — before the last piece (the one that completes
 * `length` bytes) is released, so that whatever `onEnd` records is visible by
 * the time a client has every byte. Nothing is read ahead: a borrowed piece
 * (rehydrate.ts `borrow`) is passed on before the next one is asked for.
 */
async function* watchStream(stream: AsyncIterable<Uint8Array>, length: number, onEnd: () => Promise<void>, onError: (err: unknown) => Promise<void>, bind: (err: unknown) => unknown): AsyncGenerator<Uint8Array> {
  let passed = 0;
  let ended = false;
  try {
    for await (const piece of stream) {
      passed += piece.byteLength;
      // The source checks the whole object before it releases its last piece: ending here is ending cleanly.
      if (passed === length && !ended) {
        ended = true;
        await onEnd();
      }
      yield piece;
    }
  } catch (err) {
    await onError(err).catch(() => undefined);
    throw bind(err);
  }
  if (!ended) await onEnd();
}

function endVerify(span: ReturnType<typeof openSpan>, result: 'passed' | 'failed'): void {
  span?.setAttribute('verifier_result', result);
  span?.end();
}
