/**
 * The planner: which actions a work unit gets under its contract and mode,
 * each one decided by policy. Pure apart from the policy evaluator; the plan
 * service persists and audits the result.
 *
 * A denied optional action is dropped and listed in `denied_actions`; a denied
 * required action (or a transform the client asked for explicitly) makes the
 * whole plan fail with `policy_denied`.
 */
import { newId } from '../../core/ids.ts';
import type { Principal } from '../auth/principal.ts';
import { SvcError } from '../errors.ts';
import type { Mode, Obligation, PolicyDecision, PolicyEvaluator } from '../policy/types.ts';
import type { WorkUnitRecord } from '../work-units/work-unit.ts';
import type { Plan, PlanAction } from './plan.ts';
import { estimateCompressionSaving } from './sample-estimate.ts';

/** Transforms that change meaning or bytes irreversibly; never allowed under exact_bytes. */
export const SEMANTIC_TRANSFORMS = new Set(['semantic_summary', 'semantic_cache_lookup', 'context_compile', 'prompt_trim', 'lossy_image', 'dedupe_near']);

function candidateActions(wu: WorkUnitRecord, contract: string): PlanAction[] {
  if (wu.kind === 'byte_object') {
    return [
      { type: 'hash', required: true, risk: 'low', class: 'exact' },
      { type: 'content_defined_chunk', required: true, risk: 'low', class: 'exact' },
      { type: 'dedupe', required: false, risk: 'low', class: 'exact' },
      { type: 'zstd', required: false, risk: 'low', class: 'exact' },
    ];
  }
  const actions: PlanAction[] = [
    { type: 'hash', required: true, risk: 'low', class: 'exact' },
    { type: 'exact_cache_lookup', required: false, risk: 'low', class: 'exact' },
  ];
  if (contract === 'semantic') {
    actions.push({ type: 'context_compile', required: false, risk: 'medium', class: 'semantic' });
    actions.push({ type: 'semantic_cache_lookup', required: false, risk: 'medium', class: 'semantic' });
  }
  actions.push({ type: 'model_route', required: true, risk: 'low', class: 'operation' });
  actions.push({ type: 'verify', required: true, risk: 'low', class: 'operation' });
  return actions;
}

const RISK_ORDER = { low: 0, medium: 1, high: 2 } as const;

export interface PlanRequest {
  principal: Principal;
  traceId: string;
  workUnit: WorkUnitRecord;
  mode: Mode;
  namespace?: string | undefined;
  transforms?: readonly string[] | undefined;
}

/** Decisions that denied something (the service writes `policy.transform.denied` for each). */
export type Denials = Array<{ action: string; decision: PolicyDecision }>;

export type PlanOutcome = { ok: true; plan: Plan; denials: Denials } | { ok: false; error: SvcError; denials: Denials };

export function buildPlan(policy: PolicyEvaluator, req: PlanRequest): PlanOutcome {
  const { workUnit: wu } = req;
  const contract = wu.requested_contract;
  const requested: PlanAction[] = (req.transforms ?? []).map((t) => ({
    type: t,
    required: true,
    risk: SEMANTIC_TRANSFORMS.has(t) ? 'medium' : 'low',
    class: SEMANTIC_TRANSFORMS.has(t) ? 'semantic' : 'exact',
  }));
  const actions: PlanAction[] = [];
  const denied: Plan['denied_actions'] = [];
  const denials: Denials = [];
  const obligations = new Set<Obligation>();
  const bundle = policy.activeBundle();

  for (const action of [...candidateActions(wu, contract), ...requested]) {
    const input = {
      principal: { actor: req.principal.actor, roles: req.principal.roles, tenant: req.principal.tenant },
      tenant: wu.tenant,
      work_unit_id: wu.id,
      work_unit_kind: wu.kind,
      contract,
      mode: req.mode,
      action: action.type,
      action_class: action.class,
      risk: action.risk,
      ...(req.namespace !== undefined ? { namespace: req.namespace } : {}),
    };
    const decision = policy.evaluate(input);
    decision.obligations.forEach((o) => obligations.add(o));
    if (decision.allow) {
      actions.push(action);
      continue;
    }
    denied.push({ type: action.type, reasons: decision.reasons, matched_policy_ids: decision.matched_policy_ids });
    denials.push({ action: action.type, decision });
    if (action.required) {
      const reason = decision.reasons[0] ?? 'denied by policy';
      const err = new SvcError('policy_denied', `${action.type} denied under contract ${contract}: ${reason}`, {
        workUnitId: wu.id,
        policyBundleId: bundle.id,
        retryable: false,
        details: { action: action.type, contract, matched_policy_ids: decision.matched_policy_ids },
      });
      return { ok: false, error: err, denials };
    }
  }

  let expected: Plan['expected'] = { stored_bytes_reduction: 0, basis: 'none', sample_bytes: 0 };
  if (wu.payload.kind === 'binary' && actions.some((a) => a.type === 'zstd')) {
    const est = estimateCompressionSaving(wu.payload.bytes);
    expected = { stored_bytes_reduction: est.reduction, basis: 'zstd_sample', sample_bytes: est.sampleBytes };
  }
  const risk = actions.reduce<Plan['risk']>((r, a) => (RISK_ORDER[a.risk] > RISK_ORDER[r] ? a.risk : r), 'low');
  const plan: Plan = {
    plan_id: newId('pl'),
    work_unit_id: wu.id,
    tenant: wu.tenant,
    kind: wu.kind,
    contract,
    mode: obligations.has('observe_only') ? 'observe' : req.mode,
    actions,
    denied_actions: denied,
    obligations: [...obligations],
    risk,
    expected,
    policy_bundle_id: bundle.id,
    policy_bundle_version: bundle.version,
    policy_bundle_hash: bundle.hash,
    trace_id: req.traceId,
    created_at: new Date().toISOString(),
  };
  return { ok: true, plan, denials };
}
