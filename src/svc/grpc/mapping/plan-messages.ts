/** Plans and execute results as messages (shared by WorkUnitService, PlanService and ObjectGatewayService). */
import type { ExecuteResult as ExecuteResultMessage } from '../generated/svc/v1/ExecuteResult.ts';
import type { Plan as PlanMessage } from '../generated/svc/v1/Plan.ts';
import type { ExecuteResult } from '../../exact-bytes/exact-executor.ts';
import type { AiExecuteResult } from '../../exact-bytes/execute-service.ts';
import type { Plan } from '../../plans/plan.ts';
import { actionClassCodec, contractCodec, modeCodec, riskCodec, workUnitKindCodec } from './enums.ts';
import { optional } from './rest-body.ts';
import { toStruct } from './struct.ts';

export function toPlanMessage(plan: Plan): PlanMessage {
  return {
    plan_id: plan.plan_id,
    work_unit_id: plan.work_unit_id,
    tenant: plan.tenant,
    kind: workUnitKindCodec.fromWord(plan.kind),
    contract: contractCodec.fromWord(plan.contract),
    mode: modeCodec.fromWord(plan.mode),
    actions: plan.actions.map((a) => ({ type: a.type, required: a.required, risk: riskCodec.fromWord(a.risk), class: actionClassCodec.fromWord(a.class) })),
    denied_actions: plan.denied_actions.map((d) => ({ type: d.type, reasons: d.reasons, matched_policy_ids: d.matched_policy_ids })),
    obligations: plan.obligations,
    risk: riskCodec.fromWord(plan.risk),
    expected: { stored_bytes_reduction: plan.expected.stored_bytes_reduction, basis: plan.expected.basis, sample_bytes: plan.expected.sample_bytes },
    rollout: plan.rollout
      ? { canary: optional(plan.rollout.canary), reducers: plan.rollout.reducers, guardrail_tripped: plan.rollout.guardrail_tripped, reasons: plan.rollout.reasons }
      : undefined,
    policy_bundle_id: plan.policy_bundle_id,
    policy_bundle_version: plan.policy_bundle_version,
    policy_bundle_hash: plan.policy_bundle_hash,
    trace_id: plan.trace_id,
    created_at: plan.created_at,
  };
}

export function toExecuteResultMessage(r: ExecuteResult | AiExecuteResult): ExecuteResultMessage {
  if ('cache' in r.details) {
    const ai = r as AiExecuteResult;
    return {
      work_unit_id: ai.work_unit_id,
      manifest_id: ai.manifest_id,
      accepted: ai.accepted,
      mode: modeCodec.fromWord(ai.mode),
      contract: contractCodec.fromWord(ai.contract),
      plan_id: ai.plan_id,
      policy_bundle_id: ai.policy_bundle_id,
      output: { sha256: ai.output.sha256, response: toStruct(ai.output.response as Record<string, unknown>) },
      details: { ...ai.details, route: optional(ai.details.route), verifier: optional(ai.details.verifier) },
    };
  }
  return {
    work_unit_id: r.work_unit_id,
    manifest_id: r.manifest_id,
    accepted: r.accepted,
    mode: modeCodec.fromWord(r.mode),
    contract: contractCodec.fromWord(r.contract),
    plan_id: r.plan_id,
    policy_bundle_id: r.policy_bundle_id,
    output: { sha256: r.output.sha256 },
    details: { ...r.details },
  };
}
