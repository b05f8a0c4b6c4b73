/**
 * The exact object executor: runs a planned byte_object work unit through the
 * exact-bytes pipeline and records the outcome. Every path that stores an
 * object — execute by id, inline execute, object put, multipart completion —
 * goes through {@link ExactExecutor.execute}, so they all hash, chunk,
 * dedupe, compress, verify and audit the same way.
 *
 * What the plan decides: the mode (observe stores raw, measures savings),
 * whether compression is allowed (`zstd` action) and whether chunks may be
 * shared (`dedupe` action; without it the object gets a private scope).
 */
import { createHash } from 'node:crypto';
import { chunkScopeFor, privateChunkScope } from '../chunk-store/chunk-scope.ts';
import type { ChunkScope, DedupeScopeSetting } from '../chunk-store/chunk-scope.ts';
import type { ChunkStore } from '../chunk-store/chunk-store.ts';
import type { RequestContext } from '../context.ts';
import { SvcError } from '../errors.ts';
import type { ByteManifest } from '../manifests/manifest.ts';
import type { ManifestService } from '../manifests/manifest-service.ts';
import type { SvcMetrics } from '../observability/metrics.ts';
import type { Tracing } from '../observability/tracing.ts';
import { inSpan, namespaceOf, tenantHash } from '../observability/tracing.ts';
import type { Plan } from '../plans/plan.ts';
import type { ApprovalScope } from '../approvals/approval-record.ts';
import type { WorkUnitRepository } from '../store/repositories/work-units.ts';
import type { WorkUnitRecord } from '../work-units/work-unit.ts';
import { type DeclaredBody, type Declaration, assertDeclaredDigest, readDeclared, sizeHintOf } from './declared-body.ts';
import { type IngestResult, ingest } from './ingest.ts';

export interface ExecuteOptions {
  /** Forced chunk cuts from a format-aware adapter (src/svc/adapters); the bytes stored are the same. */
  boundaries?: readonly number[];
  /**
   * What the client declared about the stream (the raw byte routes): its
   * length is enforced while reading, its digest checked against the ingest's
   * own hash, both before the manifest is written (declared-body.ts).
   */
  declared?: Declaration;
  /**
   * Runs after the bytes are ingested and checked, before the manifest is
   * written: the raw byte routes store the work unit and its plan here, so a
   * body that fails its declaration leaves no record (decision 112).
   */
  beforeManifest?: (ingested: IngestResult) => Promise<void>;
  /**
   * The object's size when it is known before its bytes arrive (a multipart completion: the sum of its parts).
   * A large object's hashing and compression then run on the ingest worker (decision 189). `declared.length`
   * counts too.
   */
  sizeHint?: number;
}

/** The spec's Execute result, plus the figures behind it. */
export interface ExecuteResult {
  work_unit_id: string;
  manifest_id: string;
  accepted: boolean;
  mode: 'observe' | 'enforce';
  contract: string;
  plan_id: string;
  policy_bundle_id: string;
  output: { sha256: string };
  details: {
    bytes_in: number;
    bytes_stored: number;
    chunk_count: number;
    chunks_reused: number;
    bytes_deduplicated: number;
    bytes_saved_by_compression: number;
    /** What enforce mode would have stored (equals bytes_stored in enforce). */
    would_store_bytes: number;
    /** Plugin transforms and verifiers that ran, in plan order, each named `id@version`. */
    plugins?: PluginRun[];
  };
}

export interface PluginRun {
  name: string;
  kind: 'transform' | 'verifier';
  /** transform: `applied` (bytes replaced) or `unchanged` (an exact transform); verifier: `passed`. */
  outcome: 'applied' | 'unchanged' | 'passed';
}

/** What the executor needs of the plugin service (src/svc/plugins). */
export interface PluginCalls {
  readonly limits: { maxInputBytes: number };
  describe(ctx: RequestContext, id: string): Promise<{ kind: string; semantic: boolean; name: string }>;
  transform(ctx: RequestContext, id: string, bytes: Uint8Array, subject: { tenant: string; workUnitId: string }): Promise<{ bytes: Uint8Array; plugin: string }>;
  verify(ctx: RequestContext, id: string, bytes: Uint8Array, subject: { tenant: string; workUnitId: string }): Promise<{ passed: boolean; reason: string; verifier: string }>;
}

export interface ExactExecutorDeps {
  chunks: ChunkStore;
  manifests: ManifestService;
  workUnitRepo: WorkUnitRepository;
  metrics: SvcMetrics;
  tracing: Tracing;
  dedupeScope: DedupeScopeSetting;
  /** Upper bound of one object (multipart included). */
  maxObjectBytes?: number;
  /** zstd level of chunks compressed alone (`storage.zstd_level`; default 3). */
  zstdLevel?: number;
  /** Checks the presented approval when a plan carries `requires_approval` (ApprovalService). */
  approvals: { assertApproved(ctx: RequestContext, scope: ApprovalScope, token: string | undefined): Promise<unknown> };
  /** Name of the bundle in force (approvals bind to the plan's bundle id and hash). */
  bundleName: () => string;
  /** Signed plugins, for plans that name `plugin:<id>` transforms. */
  plugins?: PluginCalls;
}

const PLUGIN_PREFIX = 'plugin:';

const REQUIRED_ACTIONS = ['hash', 'content_defined_chunk'];

export class ExactExecutor {
  readonly #deps: ExactExecutorDeps;
  constructor(deps: ExactExecutorDeps) {
    this.#deps = deps;
  }

  async execute(ctx: RequestContext, wu: WorkUnitRecord, plan: Plan, source: AsyncIterable<Uint8Array>, options: ExecuteOptions = {}): Promise<{ result: ExecuteResult; manifest: ByteManifest }> {
    if (wu.kind !== 'byte_object') throw new SvcError('invalid_work_unit', `the exact executor runs byte_object work units, not ${wu.kind}`, { workUnitId: wu.id });
    if (wu.state === 'executed') throw new SvcError('conflict', `work unit ${wu.id} was already executed`, { workUnitId: wu.id, details: { manifest_id: wu.manifest_id } });
    if (plan.work_unit_id !== wu.id) throw new SvcError('invalid_request', `plan ${plan.plan_id} belongs to another work unit`, { workUnitId: wu.id });
    const actions = new Set(plan.actions.map((a) => a.type));
    const missing = REQUIRED_ACTIONS.filter((a) => !actions.has(a));
    if (missing.length > 0) {
      throw new SvcError('policy_denied', `plan ${plan.plan_id} lacks required actions: ${missing.join(', ')}`, { workUnitId: wu.id, policyBundleId: plan.policy_bundle_id });
    }
    if (plan.obligations.includes('requires_approval')) {
      // Before any byte is stored: a refused approval leaves nothing behind (the refusal is audited by the service).
      await this.#deps.approvals.assertApproved(
        ctx,
        {
          tenant: wu.tenant,
          contract: plan.contract,
          bundle: { id: plan.policy_bundle_id, name: this.#deps.bundleName(), version: plan.policy_bundle_version, hash: plan.policy_bundle_hash },
          work_unit_id: wu.id,
        },
        ctx.approvalToken,
      );
    }
    const scope: ChunkScope = actions.has('dedupe') ? chunkScopeFor(this.#deps.dedupeScope, wu.tenant) : privateChunkScope(wu.id);
    const declared = options.declared;
    const sizeHint = declared ? sizeHintOf(declared) : options.sizeHint;
    const attributes = { work_unit_id: wu.id, tenant_hash: tenantHash(wu.tenant), namespace: namespaceOf(wu.logical_ref), contract: plan.contract, mode: plan.mode, policy_bundle_id: plan.policy_bundle_id, action: 'exact_bytes' };

    try {
      return await inSpan('svc.execute', attributes, async (span) => {
        // What the client declared (raw routes) is checked on the bytes it sent, before any plugin sees them.
        const received = declared ? readDeclared({ ...declared, source }) : source;
        const pluginActions = plan.mode === 'enforce' ? plan.actions.filter((a) => a.type.startsWith(PLUGIN_PREFIX)) : [];
        const plugged = pluginActions.length > 0 ? await this.#runPlugins(ctx, wu, pluginActions, received, declared) : undefined;
        const input = plugged ? oneChunk(plugged.bytes) : received;
        const ingested = await inSpan('svc.transform', { ...attributes, action: plan.actions.map((a) => a.type).join(',') }, () =>
          ingest(input, {
            store: this.#deps.chunks,
            scope,
            mode: plan.mode,
            compression: actions.has('zstd'),
            ...(options.boundaries ? { boundaries: options.boundaries } : {}),
            // A large upload's size is known up front: its hashing and compression go to worker threads (decision 189).
            // A body whose length comes after it (a pipe) is sized by the bound it streams under (decision 198).
            ...(!plugged && sizeHint !== undefined ? { sizeHint } : {}),
            ...(this.#deps.maxObjectBytes !== undefined ? { maxBytes: this.#deps.maxObjectBytes } : {}),
            ...(this.#deps.zstdLevel !== undefined ? { zstdLevel: this.#deps.zstdLevel } : {}),
          }),
        );
        if (declared && !plugged) assertDeclaredDigest(declared, ingested.sha256);
        await options.beforeManifest?.(ingested);
        const applied = plan.actions
          .map((a) => a.type)
          .filter((t) => (t !== 'zstd' && !t.startsWith(PLUGIN_PREFIX)) || plan.mode === 'enforce')
          .map((t) => plugged?.names.get(t) ?? t);
        const manifest = await inSpan('svc.manifest.write', attributes, () =>
          this.#deps.manifests.write(ctx, {
            workUnitId: wu.id,
            planId: plan.plan_id,
            tenant: wu.tenant,
            logicalRef: wu.logical_ref,
            contract: plan.contract,
            policyBundleId: plan.policy_bundle_id,
            scope,
            appliedActions: applied,
            ingest: ingested,
          }),
        );
        span?.setAttribute('manifest_id', manifest.manifest_id);
        await this.#deps.workUnitRepo.update(wu.id, { state: 'executed', manifest_id: manifest.manifest_id });
        const result: ExecuteResult = {
          work_unit_id: wu.id,
          manifest_id: manifest.manifest_id,
          accepted: true,
          mode: plan.mode,
          contract: plan.contract,
          plan_id: plan.plan_id,
          policy_bundle_id: plan.policy_bundle_id,
          output: { sha256: ingested.sha256 },
          details: {
            bytes_in: ingested.bytes_in,
            bytes_stored: ingested.bytes_stored,
            chunk_count: ingested.chunks.length,
            chunks_reused: ingested.stats.chunks_reused,
            bytes_deduplicated: ingested.stats.bytes_deduplicated,
            bytes_saved_by_compression: ingested.stats.bytes_saved_by_compression,
            would_store_bytes: ingested.stats.would_store_bytes,
            ...(plugged ? { plugins: plugged.runs } : {}),
          },
        };
        return { result, manifest };
      });
    } catch (err) {
      await this.#deps.workUnitRepo.update(wu.id, { state: 'failed' }).catch(() => undefined);
      throw err instanceof SvcError ? err.withContext({ workUnitId: wu.id, policyBundleId: plan.policy_bundle_id }) : err;
    }
  }

  /**
   * Runs the plan's plugin actions over the whole object, in plan order.
   * Plugins see bytes, so the object is buffered (up to
   * `plugins.max_input_bytes`). An exact transform must hand back identical
   * bytes (its manifest promised so); a semantic one replaces them — the plan
   * only holds it when the contract allows semantic transforms. A verifier
   * that fails stops the work unit before anything is stored.
   */
  async #runPlugins(
    ctx: RequestContext,
    wu: WorkUnitRecord,
    actions: readonly { type: string }[],
    source: AsyncIterable<Uint8Array>,
    declared: Pick<DeclaredBody, 'sha256' | 'trailingSha256'> | undefined,
  ): Promise<{ bytes: Uint8Array; runs: PluginRun[]; names: Map<string, string> }> {
    const plugins = this.#deps.plugins;
    if (!plugins) throw new SvcError('plugin_unavailable', 'plugins are not configured on this deployment', { retryable: false });
    let bytes = await buffered(source, plugins.limits.maxInputBytes);
    if (declared) assertDeclaredDigest(declared, createHash('sha256').update(bytes).digest('hex'));
    const runs: PluginRun[] = [];
    const names = new Map<string, string>();
    for (const action of actions) {
      const id = action.type.slice(PLUGIN_PREFIX.length);
      const d = await plugins.describe(ctx, id);
      names.set(action.type, `${PLUGIN_PREFIX}${d.name}`);
      await inSpan(d.kind === 'verifier' ? 'svc.verify' : 'svc.transform', { work_unit_id: wu.id, plugin: d.name, action: action.type }, async () => {
        if (d.kind === 'verifier') {
          const v = await plugins.verify(ctx, id, bytes, { tenant: wu.tenant, workUnitId: wu.id });
          if (!v.passed) throw new SvcError('verifier_failed', `verifier ${v.verifier} rejected the object${v.reason ? `: ${v.reason}` : ''}`, { details: { verifier: v.verifier, reason: v.reason } });
          runs.push({ name: v.verifier, kind: 'verifier', outcome: 'passed' });
          return;
        }
        const out = await plugins.transform(ctx, id, bytes, { tenant: wu.tenant, workUnitId: wu.id });
        if (!d.semantic) {
          if (!Buffer.from(out.bytes).equals(Buffer.from(bytes))) {
            throw new SvcError('contract_violation', `plugin ${out.plugin} declares an exact transform but changed the bytes`, { details: { plugin: out.plugin } });
          }
          runs.push({ name: out.plugin, kind: 'transform', outcome: 'unchanged' });
          return;
        }
        bytes = out.bytes;
        runs.push({ name: out.plugin, kind: 'transform', outcome: 'applied' });
      });
    }
    return { bytes, runs, names };
  }
}

async function buffered(source: AsyncIterable<Uint8Array>, max: number): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  let size = 0;
  for await (const part of source) {
    size += part.byteLength;
    if (size > max) throw new SvcError('payload_too_large', `plugins are handed objects of at most ${max} bytes (plugins.max_input_bytes)`);
    parts.push(part);
  }
  return Buffer.concat(parts, size);
}

async function* oneChunk(bytes: Uint8Array): AsyncIterable<Uint8Array> {
  yield bytes;
}
