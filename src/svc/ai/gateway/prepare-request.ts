/**
 * Planning, after admission: rollout, route, policy, the reducer gates,
 * the required verifiers, the persisted plan (begun, not awaited), context
 * compilation, the upstream body and the cache keys.
 *
 * Each optional reducer is gated in turn by the contract, policy, the
 * client's options and the rollout (reducer-gates.ts); skipped reducers are
 * listed in the plan with their reasons, as the byte-object planner does.
 */
import { exactCacheKey } from '../../cache/exact/exact-cache-key.ts';
import type { PolicyInput } from '../../policy/types.ts';
import type { ChatCompletionRequest } from '../schemas/ai-requests.ts';
import type { StreamMode, SvcExtension } from '../schemas/svc-extension.ts';
import { buildAiPlan, type ReducerGate } from './ai-plan.ts';
import { rolloutRecord } from './ai-rollout.ts';
import { admitRollout } from './admission.ts';
import type { AnswerVerification } from './answer-verification.ts';
import { type AnyAiRequest, type ApiProfile, chatProfile, embeddingProfile } from './api-profiles.ts';
import { keyFields, semanticQueryFor } from './cache-keys.ts';
import { compileRequestContext } from './context-step.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import { decidePolicy } from './policy-step.ts';
import type { AiRequestContext } from './ports.ts';
import type { Prepared } from './prepared-request.ts';
import { beginRun, workUnitStart } from './record-commit.ts';
import { gateReducer } from './reducer-gates.ts';
import type { RequestRun } from './request-run.ts';
import { routeRequest } from './route-step.ts';
import { upstreamBodyOf } from './upstream-call.ts';

export async function prepareRequest(
  d: GatewayDeps,
  profile: ApiProfile,
  ctx: AiRequestContext,
  request: AnyAiRequest,
  ext: SvcExtension,
  run: RequestRun,
  wantsMetadata: boolean,
  onBegin: (p: Promise<void>) => void,
): Promise<Prepared> {
  const requestedContract = run.contract;
  const rollout = admitRollout(d, profile, ext, run);
  const { route, fallback, fallbackError } = routeRequest(d, profile, request, ext, run, rollout);

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
  const routeDecision = await decidePolicy(d, ctx, { ...base, action: 'model.route', action_class: 'operation' }, run);
  if (routeDecision.obligations.includes('force_exact')) run.contract = 'exact_bytes';
  if (routeDecision.obligations.includes('observe_only')) run.mode = 'observe';
  const semantic = run.contract === 'semantic';
  const isChat = profile === chatProfile;
  const semanticCacheAsked = ext.allow_semantic_cache === true;
  const compileDecision = semantic && isChat ? await decidePolicy(d, ctx, { ...base, contract: run.contract, mode: run.mode, action: 'context_compile', action_class: 'semantic' }, run) : undefined;
  const semanticCacheDecision =
    semantic && semanticCacheAsked && profile !== embeddingProfile
      ? await decidePolicy(d, ctx, { ...base, contract: run.contract, mode: run.mode, action: 'semantic_cache', action_class: 'semantic' }, run)
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
  const begun = beginRun(d, ctx, workUnitStart(run, plan, ext.namespace ?? null, profile.keyRoute, d.policy.activeBundle()));
  onBegin(begun);

  let messages = (request as ChatCompletionRequest).messages;
  if (isChat && compileGate?.status === 'planned') messages = await compileRequestContext(d, messages, ext.max_context_tokens, run);
  const upstreamBody = upstreamBodyOf(profile, request, route, messages);

  if (exactGate.status === 'planned') {
    run.cacheKey = exactCacheKey({ tenant: run.tenant, route: profile.keyRoute, model: route.label, request: keyFields(request, run.contract, ext) });
  }
  const semanticQuery = semanticGate?.status === 'planned' ? semanticQueryFor(profile, request, ext, route, run.policyBundleId) : undefined;
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
    wantsMetadata,
    begun,
  };
}

function resolveStreamMode(ext: SvcExtension): StreamMode {
  if (ext.stream_mode) return ext.stream_mode;
  // High-risk tasks are not streamed before they are verified.
  return ext.risk === 'high' ? 'non_streaming' : 'direct';
}
