/**
 * The one place that combines canary selectors, admin switches and the SLO
 * guardrail into what a work unit may do: its effective mode, contract and
 * reducer tier. The planner asks this before asking policy about each
 * action; the decision is plain data so it can be recorded in the plan.
 *
 * Precedence (most restrictive wins, each step only narrows):
 * 1. the canary rule (or default) sets mode and tier; a client asking for
 *    observe always gets observe;
 * 2. `bypass_optimisation` → observe, no reducers;
 * 3. `force_exact_contract` → contract `exact_bytes`, tier at most exact;
 * 4. a tripped guardrail → tier at most exact (observe mode still allowed);
 * 5. `disabled_reducers` / `disabled_plugins` remove single actions.
 */
import type { Mode } from '../policy/types.ts';
import { EXACT_BYTES_CONTRACT } from '../policy/evaluate.ts';
import { type CanarySubject, type RolloutConfig, selectCanary } from './canary.ts';
import { narrowerTier, type ReducerTier, tierAllows } from './reducer-tiers.ts';
import type { Switches } from './switches.ts';

export interface RolloutDecision {
  mode: Mode;
  contract: string;
  reducers: ReducerTier;
  /** Actions switched off by name (reducers and plugins). */
  disabled: string[];
  canary: string | null;
  guardrail_tripped: boolean;
  reasons: string[];
}

export interface RolloutRequest extends CanarySubject {
  /** The mode the client asked for. */
  requested_mode: Mode;
}

export function decideRollout(request: RolloutRequest, config: RolloutConfig, switches: Readonly<Switches>, guardrailTripped: boolean): RolloutDecision {
  const selection = selectCanary(config, request);
  const reasons: string[] = [selection.rule ? `canary '${selection.rule}'` : 'rollout default'];
  let mode: Mode = request.requested_mode === 'observe' ? 'observe' : selection.mode;
  if (request.requested_mode === 'enforce' && selection.mode === 'observe') reasons.push('enforce requested, but this rollout stage observes only');
  let tier = selection.reducers;
  let contract = request.contract;
  if (switches.bypass_optimisation) {
    mode = 'observe';
    tier = 'none';
    reasons.push('switch bypass_optimisation is on');
  }
  if (switches.force_exact_contract && contract !== EXACT_BYTES_CONTRACT) {
    contract = EXACT_BYTES_CONTRACT;
    tier = narrowerTier(tier, 'exact');
    reasons.push('switch force_exact_contract is on');
  }
  if (guardrailTripped) {
    tier = narrowerTier(tier, 'exact');
    reasons.push('SLO guardrail tripped: advanced reducers off');
  }
  const disabled = [...new Set([...switches.disabled_reducers, ...switches.disabled_plugins])].sort();
  return { mode, contract, reducers: tier, disabled, canary: selection.rule, guardrail_tripped: guardrailTripped, reasons };
}

/** Whether the rollout lets `action` run (policy is asked separately). */
export function rolloutAllows(decision: RolloutDecision, action: string): boolean {
  if (decision.disabled.includes(action)) return false;
  return tierAllows(decision.reducers, action);
}
