/**
 * The plan of an AI work unit: which optimisation actions apply to this
 * request and why the others are skipped. Persisted before the upstream
 * call (spec: "each request … persists a plan"), so operators can see what
 * the gateway intended even for requests that fail.
 */
import { verifierNameOf } from '../../cache/verifiers/run-verifier.ts';
import type { RouteDecision } from '../routing/route-selector.ts';
import { type AnswerVerification, CITATIONS_VERIFIER } from './answer-verification.ts';
import type { AiPlan, AiPlanAction } from './ports.ts';
import type { RequestRun } from './request-run.ts';

export interface AiPlanInput {
  run: RequestRun;
  route: RouteDecision;
  fallback: RouteDecision | undefined;
  verification: AnswerVerification;
  isChat: boolean;
  cacheBypass: boolean;
  compile: { requested: boolean; permitted: boolean };
  semanticCache: { requested: boolean; permitted: boolean; semanticContract: boolean };
  risk: 'low' | 'medium' | 'high';
}

function skipped(type: AiPlanAction['type'], risk: AiPlanAction['risk'], reason: string): AiPlanAction {
  return { type, required: false, risk, status: 'skipped', reason };
}

export function buildAiPlan(input: AiPlanInput): AiPlan {
  const { run } = input;
  const actions: AiPlanAction[] = [];
  actions.push(input.cacheBypass ? skipped('exact_cache_lookup', 'low', 'svc.cache is bypass') : { type: 'exact_cache_lookup', required: false, risk: 'low', status: 'planned' });
  if (input.isChat) {
    if (!input.compile.requested) actions.push(skipped('context_compile', 'medium', 'contract is exact_bytes: the prompt passes unchanged'));
    else if (!input.compile.permitted) actions.push(skipped('context_compile', 'medium', 'denied by policy or awaiting approval'));
    else actions.push({ type: 'context_compile', required: false, risk: 'medium', status: 'planned', ...(run.mode === 'observe' ? { reason: 'observe: measured, not applied' } : {}) });
  }
  if (input.semanticCache.requested) {
    if (!input.semanticCache.semanticContract) actions.push(skipped('semantic_cache_lookup', 'medium', 'contract is exact_bytes'));
    else if (!input.semanticCache.permitted) actions.push(skipped('semantic_cache_lookup', 'medium', 'denied by policy, awaiting approval, or cache bypass'));
    else actions.push({ type: 'semantic_cache_lookup', required: false, risk: 'medium', status: 'planned' });
  }
  const routeDetail: Record<string, unknown> = { route: input.route.label, size_class: input.route.model.size_class };
  if (input.route.classification) Object.assign(routeDetail, { task_class: input.route.classification.task_class, rule: input.route.classification.rule });
  if (input.route.switched_by) routeDetail.switched_by = input.route.switched_by;
  actions.push({ type: 'model_route', required: true, risk: 'low', status: 'planned', detail: routeDetail });
  const verifiers = input.verification.specs.map(verifierNameOf);
  if (input.verification.requireCitations) verifiers.push(CITATIONS_VERIFIER);
  actions.push({ type: 'verify', required: true, risk: 'low', status: 'planned', detail: { verifiers } });
  actions.push(input.fallback ? { type: 'fallback_route', required: false, risk: 'low', status: 'planned', detail: { route: input.fallback.label } } : skipped('fallback_route', 'low', 'no fallback model configured'));
  return {
    plan_id: run.plan_id,
    contract: run.contract,
    mode: run.mode,
    actions,
    risk: input.risk,
    route: input.route.label,
    expected: { stored_bytes_reduction: 0 },
  };
}
