/**
 * The AI gateway as a domain service, independent of HTTP: one pipeline for
 * chat completions, text completions and embeddings. Each step is a module
 * of its own:
 *
 *   admission (tenant + permission, rollout)      admission.ts
 *   → route (`auto` classifier) + fallback        route-step.ts
 *   → policy → plan (work unit + persisted plan)  policy-step.ts, prepare-request.ts, ai-plan.ts
 *   → context compilation                         context-step.ts
 *   → exact cache → semantic cache                cache-keys.ts, cache-lookup.ts
 *   → upstream call → required verifiers → fallback   upstream-call.ts, verify-step.ts
 *   → cache store → compute manifest + ledger     cache-store.ts, record-commit.ts
 *   → response (+ `svc` metadata when asked)      response-shaping.ts, streamed-response.ts
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
import { requirePermission } from '../../auth/principal.ts';
import { SvcError } from '../../errors.ts';
import { EXACT_BYTES_CONTRACT } from '../../policy/evaluate.ts';
import { AUTO_MODEL } from '../routing/route-selector.ts';
import type { ChatCompletionRequest, CompletionRequest, EmbeddingRequest } from '../schemas/ai-requests.ts';
import type { SvcExtension } from '../schemas/svc-extension.ts';
import { admitTenant } from './admission.ts';
import type { AiCallOptions, AiResult } from './ai-result.ts';
import { type AnyAiRequest, type ApiProfile, chatProfile, completionProfile, embeddingProfile } from './api-profiles.ts';
import { lookupCaches } from './cache-lookup.ts';
import { storeAnswer } from './cache-store.ts';
import { type AiGatewayDeps, type GatewayDeps, resolveDeps } from './gateway-deps.ts';
import type { AiRequestContext } from './ports.ts';
import { prepareRequest } from './prepare-request.ts';
import { finishFailedSafely, finishRun } from './record-commit.ts';
import { RequestRun } from './request-run.ts';
import { responseMeta, withMetadata } from './response-shaping.ts';
import { streamedResult } from './streamed-response.ts';
import { callVerified } from './upstream-call.ts';

export type { AiGatewayDeps } from './gateway-deps.ts';
export type { AiCallOptions, AiResponseMeta, AiResult } from './ai-result.ts';
export { DEFAULT_SEMANTIC_MAX_AGE_SECONDS, keyFields } from './cache-keys.ts';

export class AiGateway {
  readonly #d: GatewayDeps;

  constructor(deps: AiGatewayDeps) {
    this.#d = resolveDeps(deps);
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
    const d = this.#d;
    requirePermission(ctx.principal, 'work_units:write');
    const ext: SvcExtension = request.svc ?? {};
    const stored = options.workUnit;
    const tenant = stored ? stored.tenant : await admitTenant(d, ctx, ext.tenant);
    const bundle = d.policy.activeBundle();
    const streamRequested = profile.streamable && (request as { stream?: boolean | null }).stream === true;
    const run = new RequestRun({ kind: profile.kind, tenant, traceId: ctx.traceId, actor: ctx.principal.actor, policyBundleId: bundle.id, requestedModel: request.model, streamRequested, workUnitId: stored?.id });
    run.stored = stored;
    run.contract = ext.contract ?? EXACT_BYTES_CONTRACT;
    run.mode = ext.mode ?? 'enforce';
    d.telemetry.count('svc_work_units_total', 1, { kind: profile.kind });
    let begun: Promise<void> | undefined;
    try {
      const prepared = await d.spans.run(
        'svc.plan',
        { work_unit_id: run.work_unit_id, contract: run.contract, namespace: ext.namespace?.split('/', 1)[0] },
        () => prepareRequest(d, profile, ctx, request, ext, run, options.wantsMetadata, (p) => (begun = p)),
        (p) => ({ mode: p.run.mode, contract: p.run.contract, model_route: p.run.route?.label }),
      );
      const hit = await lookupCaches(d, ctx, prepared);
      if (hit) return hit;
      if (streamRequested) return await streamedResult(d, ctx, prepared);
      const answer = await callVerified(d, prepared, 'json');
      storeAnswer(d, ctx, prepared, answer);
      const presented = profile.present(answer.value, request);
      const body = withMetadata(prepared, presented);
      await finishRun(d, ctx, run, begun, 'completed', null);
      // The upstream's answer unchanged (no presentation change, no `svc` object): its own text goes on as the body.
      const passThrough = body === answer.value && answer.text !== undefined;
      return { kind: 'json', body, ...(passThrough ? { bodyText: answer.text } : {}), meta: responseMeta(run) };
    } catch (err) {
      const error = SvcError.from(err).withContext({ workUnitId: run.work_unit_id, policyBundleId: bundle.id });
      await finishFailedSafely(d, ctx, run, begun, error);
      throw error;
    }
  }
}
