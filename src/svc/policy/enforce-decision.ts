/**
 * Turns a `PolicyDecision` into what the caller must do, the same way for
 * every caller (planner, executors, object gateway, AI gateway):
 *
 * - allowed → proceed (obligations still apply);
 * - refused → throw the returned `SvcError('policy_denied')` after appending
 *   the returned ledger event;
 * - observed → observe mode: the deny is recorded (event with
 *   `enforced: false`) but nothing is blocked, because observe never changes
 *   bytes or responses.
 *
 * Built-in contract guarantees (exact_bytes, object delete) refuse in every
 * mode: observe mode must not be a way to run what the contract forbids.
 * Evaluation failure refuses in enforce mode only (fail closed).
 */
import { SvcError } from '../errors.ts';
import type { AuditEvent } from './audit-event.ts';
import { OBJECT_DELETE_ACTION } from './evaluate.ts';
import type { PolicyDecision, PolicyInput } from './types.ts';

export type DecisionOutcome =
  | { outcome: 'allowed' }
  | { outcome: 'refused'; error: SvcError; event: AuditEvent }
  | { outcome: 'observed'; event: AuditEvent };

/** True when the decision must block the request in this mode. */
export function mustRefuse(decision: PolicyDecision, mode: PolicyInput['mode']): boolean {
  if (decision.allow) return false;
  if (decision.guarantee === 'exact_bytes_no_semantic' || decision.guarantee === 'object_delete_default_deny') return true;
  return mode === 'enforce';
}

/**
 * The ledger event types of a deny; `svc_policy_denials_total` counts these,
 * whatever the path (plan, AI, object delete — which the object gateway
 * records as `object.delete.denied`). Each carries `payload.action`.
 */
export const DENIAL_EVENT_TYPES: ReadonlySet<string> = new Set(['policy.transform.denied', 'policy.operation.denied', 'object.delete.denied']);

/** Ledger event type for a deny: transforms get the spec's `policy.transform.denied`; operations (delete, routing) `policy.operation.denied`. */
export function denialEventType(input: Pick<PolicyInput, 'action' | 'action_class'>): string {
  return input.action_class === 'operation' || input.action === OBJECT_DELETE_ACTION || input.action.includes('.')
    ? 'policy.operation.denied'
    : 'policy.transform.denied';
}

/** The ledger event recording a deny (enforced or observed). Carries no payload text, only names and ids. */
export function denialEvent(decision: PolicyDecision, input: PolicyInput, enforced: boolean, traceId?: string): AuditEvent {
  return {
    type: denialEventType(input),
    tenant: input.tenant,
    actor: input.principal.actor,
    ...(input.work_unit_id ? { work_unit_id: input.work_unit_id } : {}),
    policy_bundle_id: decision.bundle.id,
    ...(traceId ? { trace_id: traceId } : {}),
    payload: {
      action: input.action,
      action_class: input.action_class ?? null,
      contract: input.contract,
      mode: input.mode,
      enforced,
      reasons: decision.reasons,
      matched_policy_ids: decision.matched_policy_ids,
      guarantee: decision.guarantee ?? null,
      bundle: { id: decision.bundle.id, name: decision.bundle.name, version: decision.bundle.version, hash: decision.bundle.hash },
    },
  };
}

/** The client-facing error for a refused decision: `policy_denied`, never retryable, message names action and contract. */
export function policyDeniedError(decision: PolicyDecision, input: PolicyInput): SvcError {
  const message = decision.guarantee === 'exact_bytes_no_semantic'
    ? (decision.reasons[0] ?? `the transform '${input.action}' is denied by the contract '${input.contract}'`)
    : `the action '${input.action}' under the contract '${input.contract}' is denied by policy: ${decision.reasons.join('; ')}`;
  return new SvcError('policy_denied', message, {
    retryable: false,
    policyBundleId: decision.bundle.id,
    ...(input.work_unit_id ? { workUnitId: input.work_unit_id } : {}),
    details: {
      action: input.action,
      contract: input.contract,
      matched_policy_ids: decision.matched_policy_ids,
      ...(decision.guarantee ? { guarantee: decision.guarantee } : {}),
    },
  });
}

/** Classifies a decision for `input.mode`; see the module comment for what the caller does with each outcome. */
export function enforceDecision(decision: PolicyDecision, input: PolicyInput, traceId?: string): DecisionOutcome {
  if (decision.allow) return { outcome: 'allowed' };
  if (mustRefuse(decision, input.mode)) {
    return { outcome: 'refused', error: policyDeniedError(decision, input), event: denialEvent(decision, input, true, traceId) };
  }
  return { outcome: 'observed', event: denialEvent(decision, input, false, traceId) };
}
