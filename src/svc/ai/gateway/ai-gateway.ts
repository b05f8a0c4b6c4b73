/**
 * The AI gateway as a domain service, independent of HTTP: one pipeline for
 * chat completions, text completions and embeddings.
 *
 *   tenant + permission → rollout decision → route (`auto` classifier)
 *   → policy → plan (work unit + persisted plan) → context compilation → exact cache →
 *   semantic cache → upstream call → required verifiers → fallback →
 *   cache store → compute manifest + ledger → response (+ `svc` metadata
 *   when asked)
 *
 * Rollout: one `rollout.decide` per request sets the mode and contract
 * (`bypass_optimisation` → observe, `force_exact_contract` → exact_bytes)
 * and the reducer tier; reducers outside it (or switched off by name) are
 * skipped and listed in the plan with the rollout reasons, as the
 * byte-object planner does. Tier `none` also takes the `auto` router out.
 *
 * Durability: the request's records (work unit, plan, compute manifest,
 * ledger events) and the cache entry of its answer are committed before the
 * result is handed back — before the body of a JSON answer, before the
 * final frame of a stream (docs/decisions/067).
 *
 * Routes and the CLI call `chat`, `completions`, `embeddings` and `models`
 * and only translate the result to the wire.
 */
import { canonicalSha256 } from '../../../core/hashing.ts';
import { requirePermission, resolveTenant } from '../../auth/principal.ts';
import { tenantDeniedEvent } from '../../auth/tenant-guard.ts';
import { type CacheLedgerSink } from '../../cache/cache-context.ts';
import { DEFAULT_TTL_SECONDS } from '../../cache/cache-schemas.ts';
import { type ExactCache } from '../../cache/exact/exact-cache.ts';
import { exactCacheKey } from '../../cache/exact/exact-cache-key.ts';
import { type SemanticCache, type SemanticQuery } from '../../cache/semantic/semantic-cache.ts';
import { SvcError } from '../../errors.ts';
import { enforceDecision } from '../../policy/enforce-decision.ts';
import { EXACT_BYTES_CONTRACT } from '../../policy/evaluate.ts';
import type { PolicyDecision, PolicyEvaluator, PolicyInput } from '../../policy/types.ts';
import type { RolloutDecision } from '../../rollout/rollout-decision.ts';
import { compileContext } from '../context/context-compiler.ts';
import type { ModelCatalog } from '../providers/model-catalog.ts';
import type { UpstreamPool } from '../providers/upstream-pool.ts';
import { AUTO_MODEL, NO_ROUTING_SWITCHES, type RouteDecision, type RoutingSwitches, selectFallback, selectRoute } from '../routing/route-selector.ts';
import type { ChatCompletionRequest, CompletionRequest, EmbeddingRequest } from '../schemas/ai-requests.ts';
import { NON_OUTPUT_FIELDS } from '../schemas/ai-requests.ts';
import type { Usage } from '../schemas/openai-shapes.ts';
import type { StreamMode, SvcExtension } from '../schemas/svc-extension.ts';
import { DONE_FRAME, type SseFrame, fallbackMarker } from '../streaming/sse-frames.ts';
import { type AnyAiRequest, type ApiProfile, chatProfile, completionProfile, embeddingProfile } from './api-profiles.ts';
import { type AnswerCheck, type AnswerVerification, verifyAnswer } from './answer-verification.ts';
import { buildAiPlan, type ReducerGate } from './ai-plan.ts';
import { rolloutRecord, UNRESTRICTED_ROLLOUT } from './ai-rollout.ts';
import { type AiRequestContext, type AiRecorder, type AiRollout, type AiSpans, type AiTelemetry, type StoredAiWorkUnit, noSpans, noTelemetry, STORED_WORK_UNIT_KIND } from './ports.ts';
import { gateReducer } from './reducer-gates.ts';
import { RequestRun } from './request-run.ts';

/** Default freshness of semantic hits when the request names none. */
export const DEFAULT_SEMANTIC_MAX_AGE_SECONDS = 3600;

export interface AiGatewayDeps {
  catalog: ModelCatalog;
  upstreams: UpstreamPool;
  policy: PolicyEvaluator;
  exactCache: ExactCache;
  semanticCache: SemanticCache;
  recorder: AiRecorder;
  ledger: CacheLedgerSink;
  telemetry?: AiTelemetry;
  spans?: AiSpans;
  /** TTL of entries the gateway stores in the exact and semantic caches. */
  cacheTtlSeconds?: number;
  /**
   * The routing rollback switches in force, read once per request (the
   * composed app reads `app.rollout.switchboard.current()`; no I/O).
   */
  routingSwitches?: () => Readonly<RoutingSwitches>;
  /**
   * The rollout decision (canary stage, admin switches, SLO guardrail),
   * asked once per request; the composed app passes `app.rollout`.
   * Without one nothing is restricted by rollout.
   */
  rollout?: AiRollout;
  /**
   * Called when storing a verified answer in a cache fails. The answer is
   * still served (a cache entry is not an acknowledged record); the
   * composed app counts and alerts.
   */
  onCacheWriteError?: (err: unknown) => void;
}

export interface AiCallOptions {
  /** Add the `svc` object to the response body (the request had an `svc` extension or `X-SVC-Metadata: true`). */
  wantsMetadata: boolean;
  /**
   * Execute this stored work unit (`POST /v1/work-units/{id}/execute`)
   * instead of creating one: its id, tenant and logical reference are used,
   * and it is updated when the request is recorded. The caller has checked
   * that the principal may see and execute it.
   */
  workUnit?: StoredAiWorkUnit;
}

/** What headers and the `svc` object report. Fields settle as the request runs; streams finish them at the end. */
export interface AiResponseMeta {
  work_unit_id: string;
  manifest_id: string;
  plan_id: string;
  trace_id: string;
  tenant: string;
  contract: string;
  mode: string;
  policy_bundle_id: string;
  cache: string;
  route: string | null;
  fallback_used: boolean;
  fallback_reason: string | null;
  verifier: string | null;
  tokens_avoided: number;
  /** SHA-256 of the canonical answer served (the compute manifest's `result.output_sha256`); null until there is one. */
  output_sha256: string | null;
}

export type AiResult = { kind: 'json'; body: unknown; meta: AiResponseMeta } | { kind: 'stream'; frames: AsyncIterable<SseFrame>; meta: AiResponseMeta };

interface Answer {
  value: unknown;
  usage: Usage | undefined;
  check: AnswerCheck;
}

interface Prepared {
  profile: ApiProfile;
  request: AnyAiRequest;
  ext: SvcExtension;
  run: RequestRun;
  route: RouteDecision;
  fallback: RouteDecision | undefined;
  /** Why the fallback the request named cannot be used; raised only if a fallback is needed. */
  fallbackError: SvcError | undefined;
  upstreamBody: Record<string, unknown>;
  verification: AnswerVerification;
  semanticQuery: SemanticQuery | undefined;
  includeUsage: boolean;
  wantsMetadata: boolean;
  begun: Promise<void>;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

const ZERO_USAGE: Usage = { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 };

export class AiGateway {
  readonly #d: Required<AiGatewayDeps>;

  constructor(deps: AiGatewayDeps) {
    this.#d = { telemetry: noTelemetry, spans: noSpans, cacheTtlSeconds: DEFAULT_TTL_SECONDS, onCacheWriteError: () => {}, routingSwitches: () => NO_ROUTING_SWITCHES, rollout: UNRESTRICTED_ROLLOUT, ...deps };
  }

  chat(ctx: AiRequestContext, request: ChatCompletionRequest, options: AiCallOptions): Promise<AiResult> {
    return this.#handle(chatProfile as ApiProfile, ctx, request, options);
  }

  completions(ctx: AiRequestContext, request: CompletionRequest, options: AiCallOptions): Promise<AiResult> {
    return this.#handle(completionProfile as ApiProfile, ctx, request, options);
  }

  embeddings(ctx: AiRequestContext, request: EmbeddingRequest, options: AiCallOptions): Promise<AiResult> {
    return this.#handle(embeddingProfile as ApiProfile, ctx, request, options);
  }

  /** `GET /v1/models`: configured models plus `auto`. */
  models(ctx: AiRequestContext): { object: 'list'; data: Array<{ id: string; object: 'model'; created: number; owned_by: string }> } {
    requirePermission(ctx.principal, 'work_units:read');
    const data = this.#d.catalog.all().map((r) => ({ id: r.model.id, object: 'model' as const, created: 0, owned_by: r.provider.name }));
    if (data.length > 0) data.unshift({ id: AUTO_MODEL, object: 'model', created: 0, owned_by: 'svc' });
    return { object: 'list', data };
  }

  async #handle(profile: ApiProfile, ctx: AiRequestContext, request: AnyAiRequest, options: AiCallOptions): Promise<AiResult> {
    requirePermission(ctx.principal, 'work_units:write');
    const ext: SvcExtension = request.svc ?? {};
    const stored = options.workUnit;
    const tenant = stored ? stored.tenant : await this.#tenant(ctx, ext.tenant);
    const bundle = this.#d.policy.activeBundle();
    const streamRequested = profile.streamable && (request as { stream?: boolean | null }).stream === true;
    const run = new RequestRun({ kind: profile.kind, tenant, traceId: ctx.traceId, actor: ctx.principal.actor, policyBundleId: bundle.id, requestedModel: request.model, streamRequested, workUnitId: stored?.id });
    run.stored = stored;
    run.contract = ext.contract ?? EXACT_BYTES_CONTRACT;
    run.mode = ext.mode ?? 'enforce';
    this.#d.telemetry.count('svc_work_units_total', 1, { kind: profile.kind });
    let begun: Promise<void> | undefined;
    try {
      const prepared = await this.#d.spans.run('svc.plan', { work_unit_id: run.work_unit_id, contract: run.contract, namespace: ext.namespace?.split('/', 1)[0] }, () => this.#prepare(profile, ctx, request, ext, run, options, (p) => (begun = p)), (p) => ({ mode: p.run.mode, contract: p.run.contract, model_route: p.run.route?.label }));
      const hit = await this.#lookupCaches(ctx, prepared);
      if (hit) return hit;
      if (streamRequested) return await this.#streamed(ctx, prepared);
      const answer = await this.#callVerified(prepared, 'json');
      this.#storeAnswer(ctx, prepared, answer);
      const body = this.#presentAnswer(prepared, answer.value);
      await this.#finish(ctx, prepared.run, begun, 'completed', null);
      return { kind: 'json', body: this.#withMetadata(prepared, body), meta: this.#meta(prepared.run) };
    } catch (err) {
      const error = SvcError.from(err).withContext({ workUnitId: run.work_unit_id, policyBundleId: bundle.id });
      await this.#finishFailedSafely(ctx, run, begun, error);
      throw error;
    }
  }

  async #tenant(ctx: AiRequestContext, requested: string | undefined): Promise<string> {
    try {
      return resolveTenant(ctx.principal, requested);
    } catch (err) {
      if (err instanceof SvcError && err.code === 'tenant_forbidden') {
        await this.#d.ledger.append(tenantDeniedEvent(ctx, requested, 'svc.tenant'));
      }
      throw err;
    }
  }

  /** Rollout, route, policy, plan (begun, not awaited), context compilation and the upstream body. */
  async #prepare(
    profile: ApiProfile,
    ctx: AiRequestContext,
    request: AnyAiRequest,
    ext: SvcExtension,
    run: RequestRun,
    options: AiCallOptions,
    onBegin: (p: Promise<void>) => void,
  ): Promise<Prepared> {
    const requestedContract = run.contract;
    const rollout = this.#rollout(profile, ext, run);
    const switches = this.#d.routingSwitches();
    const routing = rollout.reducers === 'none' ? { ...switches, rolloutPassThrough: true } : switches;
    // svc.classify: the request's task class (the `auto` classifier) and the model it routes to.
    const route = this.#d.spans.runSync('svc.classify', { work_unit_id: run.work_unit_id }, () => selectRoute(this.#d.catalog, request.model, profile.capability, profile.queryText(request), profile.toolsOffered(request), routing), (r) => ({ model_route: r.label }));
    run.route = route;
    // Resolved now for the plan, but an unusable fallback fails only a request that needs it (issue 10, defect 1).
    let fallback: RouteDecision | undefined;
    let fallbackError: SvcError | undefined;
    try {
      fallback = selectFallback(this.#d.catalog, route, ext.fallback_model, profile.capability, routing);
    } catch (err) {
      fallbackError = SvcError.from(err);
    }

    // Policy: the route is an operation; context compilation and the semantic cache are semantic transforms.
    const base: Omit<PolicyInput, 'action' | 'action_class'> = {
      principal: { actor: ctx.principal.actor, roles: ctx.principal.roles, tenant: ctx.principal.tenant },
      tenant: run.tenant,
      work_unit_id: run.work_unit_id,
      work_unit_kind: profile.kind,
      contract: run.contract,
      mode: run.mode,
      model_route: route.label,
      risk: ext.risk ?? 'low',
      ...(ext.namespace ? { namespace: ext.namespace } : {}),
    };
    const routeDecision = await this.#decide(ctx, { ...base, action: 'model.route', action_class: 'operation' }, run);
    if (routeDecision.obligations.includes('force_exact')) run.contract = 'exact_bytes';
    if (routeDecision.obligations.includes('observe_only')) run.mode = 'observe';
    const semantic = run.contract === 'semantic';
    const isChat = profile === chatProfile;
    const semanticCacheAsked = ext.allow_semantic_cache === true;
    const compileDecision = semantic && isChat ? await this.#decide(ctx, { ...base, contract: run.contract, mode: run.mode, action: 'context_compile', action_class: 'semantic' }, run) : undefined;
    const semanticCacheDecision =
      semantic && semanticCacheAsked && profile !== embeddingProfile
        ? await this.#decide(ctx, { ...base, contract: run.contract, mode: run.mode, action: 'semantic_cache', action_class: 'semantic' }, run)
        : undefined;
    const cacheBypass = ext.cache === 'bypass';
    // Each optional reducer: contract, policy, the client's options, then the rollout (reducer-gates.ts).
    const gate = { rollout, requestedContract, contract: run.contract, mode: run.mode };
    const exactGate = gateReducer({ ...gate, reducer: 'exact_cache_lookup', clientBypass: cacheBypass });
    const compileGate = isChat ? gateReducer({ ...gate, reducer: 'context_compile', policy: compileDecision }) : undefined;
    const semanticGate: ReducerGate | undefined = !semanticCacheAsked
      ? undefined
      : profile === embeddingProfile
        ? { status: 'skipped', reason: 'the semantic cache does not serve embeddings' }
        : gateReducer({ ...gate, reducer: 'semantic_cache_lookup', policy: semanticCacheDecision, clientBypass: cacheBypass });

    const verification: AnswerVerification = { specs: [profile.defaultVerification(request), ...(ext.verification ? [ext.verification] : [])], requireCitations: ext.require_citations === true };
    run.streamMode = run.streamRequested ? resolveStreamMode(ext) : null;

    const plan = buildAiPlan({
      run,
      route,
      fallback,
      fallbackError,
      verification,
      exactCache: exactGate,
      compile: compileGate,
      semanticCache: semanticGate,
      rollout: rolloutRecord(rollout),
      risk: ext.risk ?? 'low',
    });
    const begun = this.#d.recorder.begin(ctx, {
      ...(run.stored ? { stored: true } : {}),
      work_unit_id: run.work_unit_id,
      manifest_id: run.manifest_id,
      tenant: run.tenant,
      namespace: ext.namespace ?? null,
      kind: profile.kind,
      logical_ref: run.stored?.logical_ref ?? `ai://${profile.keyRoute}/${encodeURIComponent(request.model)}`,
      contract: run.contract,
      mode: run.mode,
      policy_bundle: this.#d.policy.activeBundle(),
      trace_id: run.traceId,
      actor: run.actor,
      plan,
    });
    // Surfaced when awaited in #finish; attach a handler now so an early failure is not "unhandled".
    begun.catch(() => {});
    onBegin(begun);

    // Context compilation (chat, semantic contract, permitted by policy and rollout). Observe mode measures without applying.
    let messages = (request as ChatCompletionRequest).messages;
    if (isChat && compileGate?.status === 'planned') {
      const compiled = await this.#d.spans.run('svc.ai.context_compile', { work_unit_id: run.work_unit_id, contract: run.contract, mode: run.mode }, async () =>
        compileContext(messages, { contract: 'semantic', maxContextTokens: ext.max_context_tokens }),
      );
      run.contextBefore = compiled.tokens_before;
      run.contextAfter = compiled.tokens_after;
      if (run.mode === 'enforce' && compiled.changed) {
        messages = compiled.messages;
        run.tokensRemoved = Math.max(0, (compiled.tokens_before ?? 0) - (compiled.tokens_after ?? 0));
        this.#d.telemetry.count('svc_ai_context_tokens_removed_total', run.tokensRemoved);
      }
    }

    const upstreamBody: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(request)) if (k !== 'svc' && k !== 'stream' && k !== 'stream_options') upstreamBody[k] = v;
    upstreamBody.model = route.model.id;
    if (profile === chatProfile) upstreamBody.messages = messages;
    if (profile === embeddingProfile) upstreamBody.encoding_format = 'float';

    if (exactGate.status === 'planned') {
      run.cacheKey = exactCacheKey({ tenant: run.tenant, route: profile.keyRoute, model: route.label, request: keyFields(request, run.contract, ext) });
    }
    const semanticQuery: SemanticQuery | undefined = semanticGate?.status === 'planned' ? semanticQueryFor(profile, request, ext, route, run.policyBundleId) : undefined;
    const streamOptions = (request as { stream_options?: { include_usage?: boolean } | null }).stream_options;
    return {
      profile,
      request,
      ext,
      run,
      route,
      fallback,
      fallbackError,
      upstreamBody,
      verification,
      semanticQuery,
      includeUsage: streamOptions?.include_usage === true,
      wantsMetadata: options.wantsMetadata,
      begun,
    };
  }

  /**
   * The rollout decision for this request, asked once: it sets the mode and
   * the contract in force (policy obligations may narrow them further).
   */
  #rollout(profile: ApiProfile, ext: SvcExtension, run: RequestRun): RolloutDecision {
    const decision = this.#d.rollout.decide({
      tenant: run.tenant,
      work_unit_kind: STORED_WORK_UNIT_KIND[profile.kind],
      contract: run.contract,
      work_unit_id: run.work_unit_id,
      requested_mode: run.mode,
      ...(ext.namespace ? { namespace: ext.namespace } : {}),
    });
    // The rollout only ever narrows the contract to exact_bytes.
    if (decision.contract === EXACT_BYTES_CONTRACT) run.contract = EXACT_BYTES_CONTRACT;
    run.mode = decision.mode;
    run.rollout = rolloutRecord(decision);
    return decision;
  }

  /** Evaluates one policy question; a refused route throws `policy_denied`, other denials are recorded and the action skipped. */
  async #decide(ctx: AiRequestContext, input: PolicyInput, run: RequestRun): Promise<PolicyDecision> {
    const decision = await this.#d.spans.run('svc.policy.evaluate', { work_unit_id: run.work_unit_id, action: input.action, contract: input.contract, mode: input.mode }, async () => this.#d.policy.evaluate(input));
    const outcome = enforceDecision(decision, input, ctx.traceId);
    if (outcome.outcome !== 'allowed') {
      await this.#d.ledger.append(outcome.event);
      if (outcome.outcome === 'refused' && input.action === 'model.route') throw outcome.error;
    }
    return decision;
  }

  /** Exact, then semantic. Returns the served result on an enforced hit; observe mode only records would-be hits. */
  async #lookupCaches(ctx: AiRequestContext, p: Prepared): Promise<AiResult | undefined> {
    const { run } = p;
    if (run.cacheKey === null && !p.semanticQuery) {
      run.cache = 'bypass';
      return undefined;
    }
    const key = run.cacheKey;
    if (key !== null) {
      const exact = await this.#d.spans.run('svc.cache.lookup', { work_unit_id: run.work_unit_id, action: 'exact_cache_lookup', mode: run.mode }, () => this.#d.exactCache.lookupForTenant(ctx, run.tenant, key), (r) => ({ cache_result: r.hit ? 'hit' : 'miss' }));
      // A cached answer must also pass this request's own required verifiers.
      const exactCheck = exact.hit ? this.#checkCached(p, exact.entry.value) : undefined;
      if (exact.hit && exactCheck?.passed) {
        this.#d.telemetry.count('svc_cache_hits_total', 1, { cache: 'exact' });
        if (run.mode === 'enforce') return this.#serveHit(ctx, p, exact.entry.value, 'exact_hit', exactCheck);
        run.cache = 'observe_exact_hit';
      } else {
        this.#d.telemetry.count('svc_cache_misses_total', 1, { cache: 'exact' });
      }
    }
    if (p.semanticQuery && run.cache === 'miss') {
      const query = p.semanticQuery;
      const enforce = run.mode === 'enforce';
      const semantic = await this.#d.spans.run('svc.cache.lookup', { work_unit_id: run.work_unit_id, action: 'semantic_cache_lookup', mode: run.mode }, () =>
        this.#d.semanticCache.lookupForTenant(ctx, run.tenant, query, { workUnitId: run.work_unit_id, recordAcceptance: enforce }),
        (r) => ({ cache_result: r.hit ? 'hit' : r.stale ? 'stale' : 'miss' }),
      );
      const semanticCheck = semantic.hit ? this.#checkCached(p, semantic.value) : undefined;
      if (semantic.hit && semanticCheck?.passed) {
        this.#d.telemetry.count('svc_cache_hits_total', 1, { cache: 'semantic' });
        if (enforce) return this.#serveHit(ctx, p, semantic.value, 'semantic_hit', semanticCheck);
        run.cache = 'observe_semantic_hit';
      } else {
        this.#d.telemetry.count('svc_cache_misses_total', 1, { cache: 'semantic' });
        if (!semantic.hit && semantic.stale) this.#d.telemetry.count('svc_ai_semantic_cache_stale_total', 1);
      }
    }
    return undefined;
  }

  async #serveHit(ctx: AiRequestContext, p: Prepared, cached: unknown, status: 'exact_hit' | 'semantic_hit', check: AnswerCheck): Promise<AiResult> {
    const { run, profile } = p;
    run.cache = status;
    run.verifier = check.verifier;
    run.verifierPassed = true;
    run.servedRoute = run.route;
    const originalUsage = isRecord(cached) && isRecord(cached.usage) ? (cached.usage as Usage) : undefined;
    run.avoidedPromptTokens = originalUsage?.prompt_tokens ?? 0;
    run.avoidedCompletionTokens = originalUsage?.completion_tokens ?? 0;
    this.#d.telemetry.count('svc_ai_model_calls_avoided_total', 1);
    this.#d.telemetry.count('svc_ai_tokens_avoided_total', run.tokensAvoided);
    if (run.largeModelCallsAvoided > 0) this.#d.telemetry.count('svc_ai_large_model_calls_avoided_total', 1);
    // Honest usage: nothing was processed by a model for this response.
    const usage = profile === embeddingProfile ? { prompt_tokens: 0, total_tokens: 0 } : { ...ZERO_USAGE };
    const served = isRecord(cached) ? { ...cached, usage } : cached;
    if (isRecord(served) && profile !== embeddingProfile) {
      served.id = `${profile === chatProfile ? 'chatcmpl' : 'cmpl'}-${run.work_unit_id}`;
      served.created = Math.floor(Date.now() / 1000);
    }
    run.recordOutput(served);
    if (run.streamRequested) {
      const chunks = profile.toChunks(served, usage as Usage, p.includeUsage);
      const self = this;
      async function* frames(): AsyncGenerator<SseFrame> {
        for (const c of chunks) yield { data: c };
        if (p.wantsMetadata) yield { data: self.#metadataChunk(p) };
        await self.#finish(ctx, run, p.begun, 'completed', null);
        yield DONE_FRAME;
      }
      return { kind: 'stream', frames: frames(), meta: this.#meta(run) };
    }
    await this.#finish(ctx, run, p.begun, 'completed', null);
    return { kind: 'json', body: this.#withMetadata(p, profile.present(served, p.request)), meta: this.#meta(run) };
  }

  /** One upstream call (JSON, or a stream collected whole), counted and timed. */
  async #callOnce(p: Prepared, route: RouteDecision, transport: 'json' | 'stream'): Promise<{ value: unknown; usage: Usage | undefined }> {
    const { run, profile } = p;
    const client = this.#d.upstreams.client(route.provider.name);
    const body = { ...p.upstreamBody, model: route.model.id };
    const t0 = performance.now();
    run.upstreamCalled = true;
    if (route.model.size_class === 'large') {
      run.largeModelCalls++;
      this.#d.telemetry.count('svc_ai_large_model_calls_total', 1);
    }
    try {
      return await this.#d.spans.run('svc.ai.route', { work_unit_id: run.work_unit_id, model_route: route.label }, async () => {
        if (transport === 'json') {
          const value = await client.postJson(profile.path, body);
          const usage = isRecord(value) && isRecord(value.usage) ? (value.usage as Usage) : undefined;
          return { value, usage };
        }
        const assembler = profile.newAssembler();
        for await (const chunk of client.postStream(profile.path, { ...body, stream: true, stream_options: { include_usage: true } })) assembler.push(chunk);
        return { value: assembler.result(), usage: assembler.usage };
      });
    } finally {
      run.upstreamMs += performance.now() - t0;
    }
  }

  /**
   * Calls the primary route and runs the required verifiers; on a failed
   * verifier (or a retryable upstream failure) calls the fallback route,
   * whose answer must pass the same verifiers. No fallback → `verifier_failed`.
   */
  async #callVerified(p: Prepared, transport: 'json' | 'stream'): Promise<Answer> {
    const { run } = p;
    let reason: string;
    try {
      const first = await this.#callOnce(p, p.route, transport);
      run.addUsage(first.usage);
      const check = this.#verify(p, first.value);
      if (check.passed) {
        run.servedRoute = p.route;
        return { ...first, check };
      }
      if (!hasFallback(p)) throw verifierFailed(check, false);
      reason = `verifier_failed:${check.failures.join('+')}`;
    } catch (err) {
      if (!hasFallback(p) || !(err instanceof SvcError) || (err.code !== 'backend_timeout' && !(err.code === 'model_route_failed' && err.retryable))) throw err;
      reason = `upstream_error:${err.code}`;
    }
    const fallback = neededFallback(p);
    const second = await this.#callOnce(p, fallback, transport);
    run.addUsage(second.usage);
    const check = this.#verify(p, second.value);
    if (!check.passed) throw verifierFailed(check, true);
    this.#markFallback(run, fallback, reason);
    return { ...second, check };
  }

  /** A cached answer checked against this request's verifiers (svc.verify; not counted as a verifier failure of the request). */
  #checkCached(p: Prepared, value: unknown): AnswerCheck {
    return this.#d.spans.runSync('svc.verify', { work_unit_id: p.run.work_unit_id, action: 'verify_cached_answer' }, () => verifyAnswer(p.verification, value), (c) => ({ verifier_result: c.passed ? 'passed' : 'failed' }));
  }

  #verify(p: Prepared, value: unknown): AnswerCheck {
    const check = this.#d.spans.runSync('svc.verify', { work_unit_id: p.run.work_unit_id, model_route: p.run.route?.label }, () => verifyAnswer(p.verification, value), (c) => ({ verifier_result: c.passed ? 'passed' : 'failed', action: c.verifier }));
    p.run.verifier = check.verifier;
    p.run.verifierPassed = check.passed;
    if (!check.passed) {
      p.run.verifierFailures.push(...check.failures);
      for (const f of check.failures) this.#d.telemetry.count('svc_verifier_failures_total', 1, { verifier: f });
    }
    return check;
  }

  #markFallback(run: RequestRun, fallback: RouteDecision, reason: string): void {
    run.fallbackUsed = true;
    run.fallbackReason = reason;
    run.servedRoute = fallback;
    this.#d.telemetry.count('svc_ai_fallbacks_total', 1, { reason: reason.split(':')[0] ?? reason });
  }

  /**
   * Starts storing a verified answer in the caches. Not awaited here: `#finish`
   * awaits it together with the request's records, so both join the same
   * group commit.
   */
  #storeAnswer(ctx: AiRequestContext, p: Prepared, answer: Answer): void {
    const { run } = p;
    run.recordOutput(answer.value);
    if (run.largeModelCallsAvoided > 0) this.#d.telemetry.count('svc_ai_large_model_calls_avoided_total', 1);
    this.#d.telemetry.count('svc_ai_input_tokens_total', run.promptTokens);
    if (!answer.check.passed) return;
    // Only verified successes are stored; fallback answers passed their own verifier above.
    const spec = p.verification.specs[0]!;
    const key = run.cacheKey !== null && run.cache !== 'observe_exact_hit' ? run.cacheKey : null;
    const q = p.semanticQuery && run.mode === 'enforce' ? p.semanticQuery : undefined;
    if (key === null && !q) return;
    const writes: Array<Promise<unknown>> = [];
    if (key !== null) writes.push(this.#d.exactCache.storeVerified(ctx, run.tenant, key, answer.value, spec, this.#d.cacheTtlSeconds, 'gateway'));
    if (q) {
      writes.push(
        this.#d.semanticCache.storeForTenant(run.tenant, {
          domain: q.domain,
          ...(q.query !== undefined ? { query: q.query } : {}),
          source_fingerprints: q.source_fingerprints,
          policy_id: q.policy_id,
          value: answer.value,
          verification: spec,
          ttl_seconds: this.#d.cacheTtlSeconds,
        }),
      );
    }
    run.cacheWrites = Promise.all(writes).then(
      () => undefined,
      (err: unknown) => this.#d.onCacheWriteError(err),
    );
  }

  /**
   * Streaming responses. The first upstream byte is awaited before this
   * returns, so a failure to reach the provider is still an ordinary error
   * response; failures after the stream started become an in-stream error
   * event (which OpenAI clients raise as an APIError).
   */
  async #streamed(ctx: AiRequestContext, p: Prepared): Promise<AiResult> {
    const { run } = p;
    const mode = run.streamMode as StreamMode;
    const self = this;
    let started = false;
    async function* frames(): AsyncGenerator<SseFrame> {
      try {
        if (mode === 'buffered' || mode === 'non_streaming') {
          const answer = await self.#callVerified(p, mode === 'buffered' ? 'stream' : 'json');
          self.#storeAnswer(ctx, p, answer);
          started = true;
          for (const c of p.profile.toChunks(answer.value, answer.usage, p.includeUsage)) yield { data: c };
        } else {
          yield* self.#passThrough(ctx, p, mode, () => (started = true));
        }
        if (p.wantsMetadata) yield { data: self.#metadataChunk(p) };
        await self.#finish(ctx, run, p.begun, 'completed', null);
        yield DONE_FRAME;
      } catch (err) {
        const error = SvcError.from(err).withContext({ workUnitId: run.work_unit_id, policyBundleId: run.policyBundleId });
        await self.#finishFailedSafely(ctx, run, p.begun, error);
        if (!started) throw error;
        yield { data: { error: { message: error.message, type: error.code, code: error.code, param: null, work_unit_id: run.work_unit_id, retryable: error.retryable } } };
      } finally {
        // The client went away mid-stream.
        if (!run.finished) await self.#finishFailedSafely(ctx, run, p.begun, new SvcError('unavailable', 'client closed the stream'));
      }
    }
    const iterator = frames();
    const first = await iterator.next();
    async function* withFirst(): AsyncGenerator<SseFrame> {
      if (!first.done) yield first.value;
      yield* iterator;
    }
    return { kind: 'stream', frames: withFirst(), meta: this.#meta(run) };
  }

  /** Direct and speculative modes: chunks go to the client as they arrive; verification runs when the stream ends. */
  async *#passThrough(ctx: AiRequestContext, p: Prepared, mode: 'direct' | 'speculative', onStarted: () => void): AsyncGenerator<SseFrame> {
    const { run, profile } = p;
    let usageChunk: Record<string, unknown> | undefined;
    const streamRoute = async function* (self: AiGateway, route: RouteDecision): AsyncGenerator<SseFrame, { value: unknown; usage: Usage | undefined }> {
      const client = self.#d.upstreams.client(route.provider.name);
      const assembler = profile.newAssembler();
      const t0 = performance.now();
      run.upstreamCalled = true;
      if (route.model.size_class === 'large') {
        run.largeModelCalls++;
        self.#d.telemetry.count('svc_ai_large_model_calls_total', 1);
      }
      try {
        for await (const chunk of client.postStream(profile.path, { ...p.upstreamBody, model: route.model.id, stream: true, stream_options: { include_usage: true } })) {
          assembler.push(chunk);
          // The usage-only chunk is held back: it must be the last chunk, after any fallback output.
          if (isRecord(chunk) && Array.isArray(chunk.choices) && chunk.choices.length === 0) {
            if (isRecord(chunk.usage)) usageChunk = chunk;
            continue;
          }
          onStarted();
          yield { data: chunk };
        }
      } finally {
        run.upstreamMs += performance.now() - t0;
      }
      return { value: assembler.result(), usage: assembler.usage };
    };

    let answer: { value: unknown; usage: Usage | undefined };
    try {
      answer = yield* streamRoute(this, p.route);
    } catch (err) {
      const retryable = err instanceof SvcError && (err.code === 'backend_timeout' || (err.code === 'model_route_failed' && err.retryable));
      if (!hasFallback(p) || !retryable) throw err;
      const fallback = neededFallback(p);
      const reason = `upstream_error:${(err as SvcError).code}`;
      yield fallbackMarker(reason, fallback.label);
      answer = yield* streamRoute(this, fallback);
      run.addUsage(answer.usage);
      const check = this.#verify(p, answer.value);
      if (!check.passed) throw verifierFailed(check, true);
      this.#markFallback(run, fallback, reason);
      this.#storeAnswer(ctx, p, { ...answer, check });
      yield* this.#usageFrames(p, usageChunk, run);
      return;
    }
    run.addUsage(answer.usage);
    let check = this.#verify(p, answer.value);
    if (check.passed) {
      run.servedRoute = p.route;
    } else if (mode === 'speculative' && hasFallback(p)) {
      const fallback = neededFallback(p);
      const reason = `verifier_failed:${check.failures.join('+')}`;
      yield fallbackMarker(reason, fallback.label);
      answer = yield* streamRoute(this, fallback);
      run.addUsage(answer.usage);
      check = this.#verify(p, answer.value);
      if (!check.passed) throw verifierFailed(check, true);
      this.#markFallback(run, fallback, reason);
    } else if (mode === 'speculative') {
      throw verifierFailed(check, false);
    }
    // Direct mode: the answer is already with the client; the failure is recorded (manifest, metrics), never cached.
    this.#storeAnswer(ctx, p, { ...answer, check });
    yield* this.#usageFrames(p, usageChunk, run);
  }

  *#usageFrames(p: Prepared, upstreamUsageChunk: Record<string, unknown> | undefined, run: RequestRun): Generator<SseFrame> {
    if (!p.includeUsage) return;
    const usage: Usage = { prompt_tokens: run.promptTokens, completion_tokens: run.completionTokens, total_tokens: run.promptTokens + run.completionTokens };
    yield { data: { ...(upstreamUsageChunk ?? { object: p.profile === chatProfile ? 'chat.completion.chunk' : 'text_completion', created: Math.floor(Date.now() / 1000) }), choices: [], usage } };
  }

  #presentAnswer(p: Prepared, value: unknown): unknown {
    return p.profile.present(value, p.request);
  }

  #meta(run: RequestRun): AiResponseMeta {
    return {
      work_unit_id: run.work_unit_id,
      manifest_id: run.manifest_id,
      plan_id: run.plan_id,
      trace_id: run.traceId,
      tenant: run.tenant,
      contract: run.contract,
      mode: run.mode,
      policy_bundle_id: run.policyBundleId,
      cache: run.cache,
      route: run.servedRoute?.label ?? run.route?.label ?? null,
      fallback_used: run.fallbackUsed,
      fallback_reason: run.fallbackReason,
      verifier: run.verifier,
      tokens_avoided: run.tokensAvoided,
      output_sha256: run.outputSha256,
    };
  }

  #svcObject(run: RequestRun): Record<string, unknown> {
    const m = this.#meta(run);
    return {
      work_unit_id: m.work_unit_id,
      manifest_id: m.manifest_id,
      cache: m.cache,
      route: m.route,
      fallback_used: m.fallback_used,
      fallback_reason: m.fallback_reason,
      verifier: m.verifier,
      trace_id: m.trace_id,
      contract: m.contract,
      mode: m.mode,
      policy_bundle_id: m.policy_bundle_id,
      tokens_avoided: m.tokens_avoided,
    };
  }

  #withMetadata(p: Prepared, body: unknown): unknown {
    return p.wantsMetadata && isRecord(body) ? { ...body, svc: this.#svcObject(p.run) } : body;
  }

  /** The last chunk of a stream when metadata was asked for: no choices, only `svc`. */
  #metadataChunk(p: Prepared): Record<string, unknown> {
    return { id: `svc-${p.run.work_unit_id}`, object: p.profile === chatProfile ? 'chat.completion.chunk' : 'text_completion', created: Math.floor(Date.now() / 1000), model: p.run.servedRoute?.model.id ?? p.request.model, choices: [], svc: this.#svcObject(p.run) };
  }

  /**
   * Commits the request's records (and awaits its cache writes, started in
   * the same tick so they share the commit). Callers hand the result to the
   * client only after this resolves.
   */
  async #finish(ctx: AiRequestContext, run: RequestRun, begun: Promise<void> | undefined, status: 'completed' | 'failed', errorCode: string | null): Promise<void> {
    if (run.finished) return;
    run.finished = true;
    // A verifier failure that reaches the client: no fallback, or the fallback failed too (critical alert).
    if (errorCode === 'verifier_failed') this.#d.telemetry.count('svc_verifier_failures_without_fallback_total', 1);
    const overheadMs = Math.max(0, run.elapsedMs() - run.upstreamMs);
    this.#d.telemetry.observeOverhead(overheadMs / 1000, { kind: run.kind, cache: run.cache });
    const manifest = run.toManifest(status, errorCode);
    const records = (async () => {
      if (begun) await begun;
      else await this.#d.recorder.begin(ctx, minimalStart(run, this.#d.policy.activeBundle()));
      await this.#d.spans.run('svc.manifest.write', { work_unit_id: run.work_unit_id, manifest_id: run.manifest_id }, () => this.#d.recorder.complete(ctx, manifest));
    })();
    await Promise.all([records, run.cacheWrites]);
  }

  /** Records a failed request; a recording failure must not hide the original error. */
  async #finishFailedSafely(ctx: AiRequestContext, run: RequestRun, begun: Promise<void> | undefined, error: SvcError): Promise<void> {
    try {
      await this.#finish(ctx, run, begun, 'failed', error.code);
    } catch {
      // The original error is what the client needs; the recorder logs its own failures.
    }
  }
}

/** Whether the request has a fallback to turn to (a usable one, or one it named that turned out unusable). */
function hasFallback(p: Prepared): boolean {
  return p.fallback !== undefined || p.fallbackError !== undefined;
}

/** The fallback at the moment it is needed: an unusable one the request named fails the request now, not earlier. */
function neededFallback(p: Prepared): RouteDecision {
  if (p.fallbackError) throw p.fallbackError;
  return p.fallback!;
}

function verifierFailed(check: AnswerCheck, afterFallback: boolean): SvcError {
  const message = afterFallback
    ? `the fallback answer also failed its required verifier (${check.failures.join(', ')})`
    : `the answer failed its required verifier (${check.failures.join(', ')}) and no fallback model is configured`;
  return new SvcError('verifier_failed', message, { retryable: false, details: { verifier: check.verifier, failed: check.failures } });
}

function resolveStreamMode(ext: SvcExtension): StreamMode {
  if (ext.stream_mode) return ext.stream_mode;
  // High-risk tasks are not streamed before they are verified.
  return ext.risk === 'high' ? 'non_streaming' : 'direct';
}

/** Every output-affecting field: the request minus transport/bookkeeping fields, plus the svc options that change the answer or its validity. */
export function keyFields(request: AnyAiRequest, contract: string, ext: SvcExtension): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(request)) if (!NON_OUTPUT_FIELDS.has(k) && k !== 'model' && v !== undefined) fields[k] = v;
  fields.svc = {
    contract,
    max_context_tokens: contract === 'semantic' ? (ext.max_context_tokens ?? null) : null,
    require_citations: ext.require_citations === true,
    verification: ext.verification ?? null,
    // The sources an answer was built from: a new document version must not be answered from the old one.
    source_fingerprints: ext.source_fingerprints ? [...new Set(ext.source_fingerprints)].sort() : null,
  };
  return fields;
}

/**
 * The semantic cache question of a request: the last user text in a domain
 * per route and model (or `svc.cache_domain`), with the request's source
 * fingerprints or, when none are given, one fingerprint over everything
 * else that shapes the answer (system prompt, history, sampling fields).
 */
function semanticQueryFor(profile: ApiProfile, request: AnyAiRequest, ext: SvcExtension, route: RouteDecision, policyId: string): SemanticQuery | undefined {
  const query = profile.queryText(request);
  if (query.trim() === '') return undefined;
  const context = keyFields(request, 'semantic', ext);
  if (Array.isArray(context.messages)) context.messages = (context.messages as unknown[]).slice(0, -1);
  else delete context.prompt;
  return {
    domain: ext.cache_domain ?? `${profile.keyRoute}:${route.label}`,
    query,
    source_fingerprints: ext.source_fingerprints ?? [`ctx:${canonicalSha256(context)}`],
    policy_id: policyId,
    freshness: { max_age_seconds: ext.max_cache_age_seconds ?? DEFAULT_SEMANTIC_MAX_AGE_SECONDS },
    ...(ext.verification ? { verification: ext.verification } : {}),
  };
}

function minimalStart(run: RequestRun, bundle: ReturnType<PolicyEvaluator['activeBundle']>) {
  return {
    ...(run.stored ? { stored: true } : {}),
    work_unit_id: run.work_unit_id,
    manifest_id: run.manifest_id,
    tenant: run.tenant,
    namespace: null,
    kind: run.kind,
    logical_ref: run.stored?.logical_ref ?? `ai://${run.kind}/${encodeURIComponent(run.requestedModel)}`,
    contract: run.contract,
    mode: run.mode,
    policy_bundle: bundle,
    trace_id: run.traceId,
    actor: run.actor,
    plan: { plan_id: run.plan_id, contract: run.contract, mode: run.mode, actions: [], risk: 'low' as const, route: null, expected: { stored_bytes_reduction: 0 }, denied_actions: [], rollout: run.rollout },
  };
}
