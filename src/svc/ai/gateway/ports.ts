/**
 * What the AI gateway needs from the rest of svc, as narrow interfaces, so
 * the gateway is independent of HTTP and of storage. The composition root
 * (src/svc/app.ts) implements them with the work-unit, plan, manifest and
 * ledger services, prom-client and OpenTelemetry.
 */
import type { Principal } from '../../auth/principal.ts';
import type { Plan } from '../../plans/plan.ts';
import type { BundleRef } from '../../policy/types.ts';
import type { RolloutDecision, RolloutRequest } from '../../rollout/rollout-decision.ts';

export interface AiRequestContext {
  readonly principal: Principal;
  readonly traceId: string;
}

export type AiWorkUnitKind = 'ai_chat_completion' | 'ai_completion' | 'ai_embedding';

/**
 * The work unit kind an AI request is stored and selected under (the
 * `work_unit_kinds` of canary rules, `GET /v1/work-units`): one per route.
 */
export const STORED_WORK_UNIT_KIND: Readonly<Record<AiWorkUnitKind, string>> = Object.freeze({
  ai_chat_completion: 'prompt_request',
  ai_completion: 'completion_request',
  ai_embedding: 'embedding_request',
});

/**
 * The rollout layer as the gateway sees it: one synchronous decision per
 * request (canary stage, admin switches, SLO guardrail → mode, contract,
 * reducer tier). The composed app passes `app.rollout.decide`.
 */
export interface AiRollout {
  decide(request: RolloutRequest): RolloutDecision;
}

/** A skipped action as the persisted plan lists it (same shape as the byte-object planner's). */
export type AiDeniedAction = Plan['denied_actions'][number];

/** The rollout decision as recorded in the plan and the compute manifest. */
export type AiRolloutRecord = NonNullable<Plan['rollout']>;

export interface AiPlanAction {
  type: 'exact_cache_lookup' | 'context_compile' | 'semantic_cache_lookup' | 'model_route' | 'verify' | 'fallback_route';
  required: boolean;
  risk: 'low' | 'medium' | 'high';
  /** Whether policy, the rollout and the request's options let the action run (`skipped` with a reason otherwise). */
  status: 'planned' | 'skipped';
  reason?: string;
  detail?: Record<string, unknown>;
}

export interface AiPlan {
  plan_id: string;
  contract: 'exact_bytes' | 'semantic';
  mode: 'observe' | 'enforce';
  actions: AiPlanAction[];
  risk: 'low' | 'medium' | 'high';
  route: string | null;
  expected: { stored_bytes_reduction: number };
  /** Optional actions skipped by policy or by the rollout, with the reasons (the plan's `denied_actions`). */
  denied_actions: AiDeniedAction[];
  /** Null only when the request failed before the rollout was asked. */
  rollout: AiRolloutRecord | null;
}

/**
 * A stored work unit (`prompt_request`, `completion_request`,
 * `embedding_request`) the gateway executes instead of creating one: its
 * id, tenant and logical reference are kept, and the recorder updates it
 * rather than inserting a new one.
 */
export interface StoredAiWorkUnit {
  id: string;
  tenant: string;
  logical_ref: string;
}

/** Written before the upstream call: the work unit and its persisted plan (`plan.created`). */
export interface AiWorkUnitStart {
  /** True when the work unit already exists (a stored unit being executed): update it, do not insert. */
  stored?: boolean;
  work_unit_id: string;
  manifest_id: string;
  tenant: string;
  namespace: string | null;
  kind: AiWorkUnitKind;
  logical_ref: string;
  contract: AiPlan['contract'];
  mode: AiPlan['mode'];
  policy_bundle: BundleRef;
  trace_id: string;
  actor: string;
  plan: AiPlan;
}

export type AiCacheStatus = 'miss' | 'exact_hit' | 'semantic_hit' | 'bypass' | 'observe_exact_hit' | 'observe_semantic_hit';

/** The compute manifest of one AI work unit (spec: Manifest; `result.fallback_used` / `fallback_reason`). */
export interface AiComputeManifest {
  manifest_id: string;
  work_unit_id: string;
  plan_id: string;
  tenant: string;
  kind: AiWorkUnitKind;
  contract: AiPlan['contract'];
  mode: AiPlan['mode'];
  policy_bundle_id: string;
  trace_id: string;
  actor: string;
  status: 'completed' | 'failed';
  route: string | null;
  requested_model: string;
  cache: AiCacheStatus;
  cache_key: string | null;
  stream: { requested: boolean; mode: string | null };
  verifier: { name: string | null; passed: boolean | null; failures: string[] };
  result: {
    fallback_used: boolean;
    fallback_reason: string | null;
    error_code: string | null;
    /** SHA-256 of the canonical response served (never the text). */
    output_sha256: string | null;
  };
  tokens: {
    prompt: number;
    completion: number;
    /** Tokens the provider did not have to process because of a cache hit. */
    avoided: number;
    removed_by_context_compile: number;
    context_before: number | null;
    context_after: number | null;
  };
  routing: {
    task_class: string | null;
    size_class: 'small' | 'large' | null;
    baseline_size_class: 'small' | 'large' | null;
    large_model_calls: number;
    large_model_calls_avoided: number;
    /** What changed the route: `model_router_disabled`, `route_to_baseline_provider`, `rollout_pass_through`. */
    switched_by: string[];
  };
  /** The rollout decision this request ran under (canary, reducer tier, guardrail, reasons). */
  rollout: AiRolloutRecord | null;
  estimated_cost: { currency: string; provider_cost: number; avoided_cost: number } | null;
  latency_ms: { total: number; upstream: number | null; overhead: number | null };
  created_at: string;
}

export interface AiRecorder {
  begin(ctx: AiRequestContext, start: AiWorkUnitStart): Promise<void>;
  complete(ctx: AiRequestContext, manifest: AiComputeManifest): Promise<void>;
}

/** Counters the gateway increments (spec: Metrics, suggested names). */
export type AiCounter =
  | 'svc_work_units_total'
  | 'svc_cache_hits_total'
  | 'svc_cache_misses_total'
  | 'svc_ai_input_tokens_total'
  | 'svc_ai_context_tokens_removed_total'
  | 'svc_ai_tokens_avoided_total'
  | 'svc_ai_model_calls_avoided_total'
  | 'svc_ai_large_model_calls_total'
  | 'svc_ai_large_model_calls_avoided_total'
  | 'svc_ai_fallbacks_total'
  | 'svc_ai_semantic_cache_stale_total'
  | 'svc_verifier_failures_total'
  | 'svc_verifier_failures_without_fallback_total';

export interface AiTelemetry {
  count(metric: AiCounter, value?: number, labels?: Record<string, string>): void;
  /** Gateway's own processing time (total minus upstream), seconds. */
  observeOverhead(seconds: number, labels: Record<string, string>): void;
}

/** Span runner (spec: Traces). Attributes never carry prompt text. */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

export interface AiSpans {
  /** Runs `fn` in a span; `result` adds attributes known only from the value (e.g. `cache_result`). */
  run<T>(name: string, attributes: SpanAttributes, fn: () => Promise<T>, result?: (value: T) => SpanAttributes): Promise<T>;
  /** The same for synchronous work (answer verification inside streams). */
  runSync<T>(name: string, attributes: SpanAttributes, fn: () => T, result?: (value: T) => SpanAttributes): T;
}

export const noTelemetry: AiTelemetry = { count() {}, observeOverhead() {} };
export const noSpans: AiSpans = { run: (_name, _attrs, fn) => fn(), runSync: (_name, _attrs, fn) => fn() };
