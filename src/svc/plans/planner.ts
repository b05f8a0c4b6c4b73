/**
 * The planner: which actions a work unit gets under its contract and mode,
 * each one decided by policy and by the rollout state. Pure apart from the
 * evaluator; the plan service persists and audits the result.
 *
 * - Rollout (canary stage, switches, SLO guardrail) picks the mode and the
 *   reducer tier, and may force the exact contract; optional actions outside
 *   the tier are skipped.
 * - Policy decides each action. `enforceDecision` says what a deny means in
 *   this mode: refused (a required action, or a transform the client asked
 *   for, fails the plan with `policy_denied`; built-in contract guarantees
 *   refuse in every mode) or observed (recorded, nothing blocked).
 */
import { newId } from '../../core/ids.ts';
import type { Principal } from '../auth/principal.ts';
import type { SvcError } from '../errors.ts';
import type { AuditEvent } from '../policy/audit-event.ts';
import { enforceDecision } from '../policy/enforce-decision.ts';
import { SEMANTIC_ACTIONS } from '../policy/semantic-actions.ts';
import type { Mode, Obligation, PolicyEvaluator, PolicyInput } from '../policy/types.ts';
import { type RolloutDecision, rolloutAllows } from '../rollout/rollout-decision.ts';
import type { WorkUnitRecord } from '../work-units/work-unit.ts';
import type { Plan, PlanAction } from './plan.ts';
import { estimateCompressionSaving } from './sample-estimate.ts';
import { inSpan, namespaceOf } from '../observability/tracing.ts';

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
  /** The rollout decision for this work unit (mode, contract, reducer tier). */
  rollout: RolloutDecision;
  namespace?: string | undefined;
  transforms?: readonly string[] | undefined;
  /** Classes of requested transforms the planner cannot know by name (plugins, `plugin:<id>`: their signed manifest says). */
  transformClasses?: ReadonlyMap<string, 'exact' | 'semantic'> | undefined;
}

export type PlanOutcome =
  | { ok: true; plan: Plan; events: AuditEvent[] }
  | { ok: false; error: SvcError; events: AuditEvent[] };

export function buildPlan(policy: PolicyEvaluator, req: PlanRequest): PlanOutcome {
  const { workUnit: wu, rollout } = req;
  const contract = rollout.contract;
  const mode: Mode = rollout.mode;
  const requested: PlanAction[] = (req.transforms ?? []).map((t) => {
    const semantic = req.transformClasses?.get(t) === 'semantic' || SEMANTIC_ACTIONS.has(t);
    return { type: t, required: true, risk: semantic ? 'medium' : 'low', class: semantic ? 'semantic' : 'exact' };
  });
  const actions: PlanAction[] = [];
  const denied: Plan['denied_actions'] = [];
  const events: AuditEvent[] = [];
  const obligations = new Set<Obligation>();
  const bundle = policy.activeBundle();

  for (const action of [...candidateActions(wu, contract), ...requested]) {
    const input: PolicyInput = {
      principal: { actor: req.principal.actor, roles: req.principal.roles, tenant: req.principal.tenant },
      tenant: wu.tenant,
      work_unit_id: wu.id,
      work_unit_kind: wu.kind,
      contract,
      mode,
      action: action.type,
      action_class: action.class,
      risk: action.risk,
      ...(req.namespace !== undefined ? { namespace: req.namespace } : {}),
    };
    const decision = inSpan('svc.policy.evaluate', { work_unit_id: wu.id, action: action.type, contract, mode, namespace: namespaceOf(req.namespace) }, () => policy.evaluate(input));
    const outcome = enforceDecision(decision, input, req.traceId);
    if (outcome.outcome === 'refused') {
      events.push(outcome.event);
      denied.push({ type: action.type, reasons: decision.reasons, matched_policy_ids: decision.matched_policy_ids });
      if (action.required) return { ok: false, error: outcome.error, events };
      continue;
    }
    if (outcome.outcome === 'observed') {
      // Observe mode: the deny is recorded; the action stays out of the plan (observe applies no transforms anyway).
      events.push(outcome.event);
      denied.push({ type: action.type, reasons: decision.reasons, matched_policy_ids: decision.matched_policy_ids });
      continue;
    }
    decision.obligations.forEach((o) => obligations.add(o));
    if (!action.required && !rolloutAllows(rollout, action.type)) {
      const reason = rollout.disabled.includes(action.type)
        ? `rollout: reducer '${action.type}' is switched off (disable_reducer)`
        : `rollout: reducer tier '${rollout.reducers}' (${rollout.reasons.join('; ')})`;
      denied.push({ type: action.type, reasons: [reason], matched_policy_ids: [] });
      continue;
    }
    actions.push(action);
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
    mode: obligations.has('observe_only') ? 'observe' : mode,
    actions,
    denied_actions: denied,
    obligations: [...obligations],
    risk,
    expected,
    rollout: { canary: rollout.canary, reducers: rollout.reducers, guardrail_tripped: rollout.guardrail_tripped, reasons: rollout.reasons },
    policy_bundle_id: bundle.id,
    policy_bundle_version: bundle.version,
    policy_bundle_hash: bundle.hash,
    trace_id: req.traceId,
    created_at: new Date().toISOString(),
  };
  return { ok: true, plan, events };
}
