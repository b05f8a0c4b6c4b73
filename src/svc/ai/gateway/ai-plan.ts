/**
 * The plan of an AI work unit: which optimisation actions apply to this
 * request and why the others are skipped. Persisted before the upstream
 * call (spec: "each request … persists a plan"), so operators can see what
 * the gateway intended even for requests that fail.
 *
 * Each optional reducer arrives as a `ReducerGate` the gateway settled
 * (contract, policy, the client's options, the rollout); skips that policy
 * or the rollout caused also become `denied_actions` entries, the shape the
 * byte-object planner writes, next to the `rollout` decision itself.
 */
import { verifierNameOf } from '../../cache/verifiers/run-verifier.ts';
import type { RouteDecision } from '../routing/route-selector.ts';
import { type AnswerVerification, CITATIONS_VERIFIER } from './answer-verification.ts';
import type { AiDeniedAction, AiPlan, AiPlanAction, AiRolloutRecord } from './ports.ts';
import type { RequestRun } from './request-run.ts';

/**
 * Whether one optional reducer runs for this request. `skipped` carries the
 * reason shown in the plan; `denial` is set when policy or the rollout (not
 * the contract or the client's own options) skipped it.
 */
export type ReducerGate = { status: 'planned'; reason?: string } | { status: 'skipped'; reason: string; denial?: AiDeniedAction };

export interface AiPlanInput {
  run: RequestRun;
  route: RouteDecision;
  fallback: RouteDecision | undefined;
  /** Set when the fallback the request named cannot serve it: shown as skipped, raised only if needed. */
  fallbackError?: { message: string } | undefined;
  verification: AnswerVerification;
  exactCache: ReducerGate;
  /** Absent when the API has no such step (context compilation is chat-only; the semantic cache only when asked for). */
  compile: ReducerGate | undefined;
  semanticCache: ReducerGate | undefined;
  rollout: AiRolloutRecord;
  risk: 'low' | 'medium' | 'high';
}

const REDUCER_RISK = { exact_cache_lookup: 'low', context_compile: 'medium', semantic_cache_lookup: 'medium' } as const;

function reducerAction(type: keyof typeof REDUCER_RISK, gate: ReducerGate, denied: AiDeniedAction[]): AiPlanAction {
  const action: AiPlanAction = { type, required: false, risk: REDUCER_RISK[type], status: gate.status };
  if (gate.reason !== undefined) action.reason = gate.reason;
  if (gate.status === 'skipped' && gate.denial) denied.push(gate.denial);
  return action;
}

export function buildAiPlan(input: AiPlanInput): AiPlan {
  const { run } = input;
  const actions: AiPlanAction[] = [];
  const denied: AiDeniedAction[] = [];
  actions.push(reducerAction('exact_cache_lookup', input.exactCache, denied));
  if (input.compile) actions.push(reducerAction('context_compile', input.compile, denied));
  if (input.semanticCache) actions.push(reducerAction('semantic_cache_lookup', input.semanticCache, denied));
  const routeDetail: Record<string, unknown> = { route: input.route.label, size_class: input.route.model.size_class };
  if (input.route.classification) Object.assign(routeDetail, { task_class: input.route.classification.task_class, rule: input.route.classification.rule });
  if (input.route.switched_by) routeDetail.switched_by = input.route.switched_by;
  actions.push({ type: 'model_route', required: true, risk: 'low', status: 'planned', detail: routeDetail });
  const verifiers = input.verification.specs.map(verifierNameOf);
  if (input.verification.requireCitations) verifiers.push(CITATIONS_VERIFIER);
  actions.push({ type: 'verify', required: true, risk: 'low', status: 'planned', detail: { verifiers } });
  actions.push(
    input.fallback
      ? { type: 'fallback_route', required: false, risk: 'low', status: 'planned', detail: { route: input.fallback.label } }
      : { type: 'fallback_route', required: false, risk: 'low', status: 'skipped', reason: input.fallbackError?.message ?? 'no fallback model configured for this API' },
  );
  return {
    plan_id: run.plan_id,
    contract: run.contract,
    mode: run.mode,
    actions,
    risk: input.risk,
    route: input.route.label,
    expected: { stored_bytes_reduction: 0 },
    denied_actions: denied,
    rollout: input.rollout,
  };
}
