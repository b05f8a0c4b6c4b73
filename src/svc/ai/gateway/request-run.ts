/**
 * The mutable record of one AI request while it runs: ids allocated up
 * front (so headers can name the manifest before a stream ends), what the
 * pipeline decided, and the figures the compute manifest and the response
 * metadata report.
 */
import type { OperatingPoint } from '../../cache/semantic/semantic-cache.ts';
import { canonicalSha256 } from '../../../core/hashing.ts';
import { newId } from '../../../core/ids.ts';
import type { RouteDecision } from '../routing/route-selector.ts';
import type { Usage } from '../schemas/openai-shapes.ts';
import type { AiCacheStatus, AiComputeManifest, AiPlan, AiRolloutRecord, AiWorkUnitKind, StoredAiWorkUnit } from './ports.ts';

export class RequestRun {
  readonly work_unit_id: string;
  readonly manifest_id = newId('mf');
  readonly plan_id = newId('pl');
  readonly startedAt = performance.now();
  readonly kind: AiWorkUnitKind;
  readonly tenant: string;
  readonly traceId: string;
  readonly actor: string;
  readonly policyBundleId: string;
  readonly requestedModel: string;
  readonly streamRequested: boolean;

  contract: AiPlan['contract'] = 'exact_bytes';
  mode: AiPlan['mode'] = 'enforce';
  /** The stored work unit being executed, when the request is one (`POST /v1/work-units/{id}/execute`). */
  stored: StoredAiWorkUnit | undefined;
  /** The rollout decision the request runs under (set before routing). */
  rollout: AiRolloutRecord | null = null;
  route: RouteDecision | undefined;
  /** The route that produced the served answer (the fallback's, when used). */
  servedRoute: RouteDecision | undefined;
  streamMode: string | null = null;
  cache: AiCacheStatus = 'miss';
  /** The operating point a semantic hit (served or observed) was accepted under (docs/semantic-cache.md). */
  semanticOperatingPoint: OperatingPoint | null = null;
  cacheKey: string | null = null;
  verifier: string | null = null;
  verifierPassed: boolean | null = null;
  verifierFailures: string[] = [];
  fallbackUsed = false;
  fallbackReason: string | null = null;
  promptTokens = 0;
  completionTokens = 0;
  avoidedPromptTokens = 0;
  avoidedCompletionTokens = 0;
  contextBefore: number | null = null;
  contextAfter: number | null = null;
  tokensRemoved = 0;
  largeModelCalls = 0;
  upstreamMs = 0;
  upstreamCalled = false;
  outputSha256: string | null = null;
  finished = false;
  /** Cache stores of the answer, started before the records are committed and awaited with them (never rejects). */
  cacheWrites: Promise<void> | undefined;

  constructor(init: { kind: AiWorkUnitKind; tenant: string; traceId: string; actor: string; policyBundleId: string; requestedModel: string; streamRequested: boolean; workUnitId?: string | undefined }) {
    // A stored work unit being executed keeps its id; a gateway request gets a new one.
    this.work_unit_id = init.workUnitId ?? newId('wu');
    this.kind = init.kind;
    this.tenant = init.tenant;
    this.traceId = init.traceId;
    this.actor = init.actor;
    this.policyBundleId = init.policyBundleId;
    this.requestedModel = init.requestedModel;
    this.streamRequested = init.streamRequested;
  }

  addUsage(usage: Usage | undefined | null): void {
    if (!usage) return;
    this.promptTokens += usage.prompt_tokens ?? 0;
    this.completionTokens += usage.completion_tokens ?? 0;
  }

  recordOutput(value: unknown): void {
    this.outputSha256 = canonicalSha256(value);
  }

  get tokensAvoided(): number {
    return this.avoidedPromptTokens + this.avoidedCompletionTokens;
  }

  /** Large-model calls avoided: the baseline would have called a large model and this request did not. */
  get largeModelCallsAvoided(): number {
    return this.route?.baseline_size_class === 'large' && this.largeModelCalls === 0 ? 1 : 0;
  }

  elapsedMs(): number {
    return performance.now() - this.startedAt;
  }

  toManifest(status: 'completed' | 'failed', errorCode: string | null): AiComputeManifest {
    const total = this.elapsedMs();
    const priced = this.servedRoute?.model.price ?? this.route?.model.price;
    const cost = (prompt: number, completion: number) => (priced ? (prompt / 1000) * priced.input_per_1k + (completion / 1000) * priced.output_per_1k : 0);
    return {
      manifest_id: this.manifest_id,
      work_unit_id: this.work_unit_id,
      plan_id: this.plan_id,
      tenant: this.tenant,
      kind: this.kind,
      contract: this.contract,
      mode: this.mode,
      policy_bundle_id: this.policyBundleId,
      trace_id: this.traceId,
      actor: this.actor,
      status,
      route: this.servedRoute?.label ?? this.route?.label ?? null,
      requested_model: this.requestedModel,
      cache: this.cache,
      cache_key: this.cacheKey,
      stream: { requested: this.streamRequested, mode: this.streamMode },
      verifier: { name: this.verifier, passed: this.verifierPassed, failures: this.verifierFailures },
      result: { fallback_used: this.fallbackUsed, fallback_reason: this.fallbackReason, error_code: errorCode, output_sha256: this.outputSha256 },
      tokens: {
        prompt: this.promptTokens,
        completion: this.completionTokens,
        avoided: this.tokensAvoided,
        removed_by_context_compile: this.tokensRemoved,
        context_before: this.contextBefore,
        context_after: this.contextAfter,
      },
      routing: {
        task_class: this.route?.classification?.task_class ?? null,
        size_class: (this.servedRoute ?? this.route)?.model.size_class ?? null,
        baseline_size_class: this.route?.baseline_size_class ?? null,
        large_model_calls: this.largeModelCalls,
        large_model_calls_avoided: this.largeModelCallsAvoided,
        switched_by: this.route?.switched_by ?? [],
      },
      rollout: this.rollout,
      estimated_cost: priced
        ? { currency: priced.currency ?? 'USD', provider_cost: cost(this.promptTokens, this.completionTokens), avoided_cost: this.cache === 'exact_hit' || this.cache === 'semantic_hit' ? cost(this.avoidedPromptTokens, this.avoidedCompletionTokens) : 0 }
        : null,
      latency_ms: { total, upstream: this.upstreamCalled ? this.upstreamMs : null, overhead: this.upstreamCalled ? Math.max(0, total - this.upstreamMs) : total },
      created_at: new Date().toISOString(),
    };
  }
}
