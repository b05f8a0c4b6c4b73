/**
 * The policy questions of a request. The route is an operation (a refusal
 * fails the request with `policy_denied`); context compilation and the
 * semantic cache are semantic transforms (a denial skips the action). Every
 * denial is recorded in the ledger.
 */
import { enforceDecision } from '../../policy/enforce-decision.ts';
import type { PolicyDecision, PolicyInput } from '../../policy/types.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import type { AiRequestContext } from './ports.ts';
import type { RequestRun } from './request-run.ts';

/** Evaluates one policy question; a refused route throws `policy_denied`, other denials are recorded and the action skipped. */
export async function decidePolicy(d: GatewayDeps, ctx: AiRequestContext, input: PolicyInput, run: RequestRun): Promise<PolicyDecision> {
  const decision = await d.spans.run('svc.policy.evaluate', { work_unit_id: run.work_unit_id, action: input.action, contract: input.contract, mode: input.mode }, async () => d.policy.evaluate(input));
  const outcome = enforceDecision(decision, input, ctx.traceId);
  if (outcome.outcome !== 'allowed') {
    await d.ledger.append(outcome.event);
    if (outcome.outcome === 'refused' && input.action === 'model.route') throw outcome.error;
  }
  return decision;
}
