/**
 * The rollout decision applied to the AI gateway's optional reducers —
 * exact cache, context compilation, semantic cache — the way the
 * byte-object planner applies it to dedupe and zstd (src/svc/plans/planner.ts):
 * an action outside the reducer tier, or switched off by name, is skipped
 * and listed in the plan's `denied_actions` with the rollout reasons.
 *
 * The reducers answer to two names: the plan action (`exact_cache_lookup`,
 * the name operators see in plans and pass to `disable_reducer`) and the
 * reducer family the tiers are defined over (`exact_cache`, listed in
 * policy/semantic-actions.ts `EXACT_ACTIONS`; `semantic_cache` and
 * `context_compile` are semantic). Either name switches the reducer off.
 */
import { DEFAULT_ROLLOUT_CONFIG } from '../../rollout/canary.ts';
import { decideRollout, type RolloutDecision, rolloutAllows } from '../../rollout/rollout-decision.ts';
import { DEFAULT_SWITCHES } from '../../rollout/switches.ts';
import type { AiDeniedAction, AiRollout, AiRolloutRecord } from './ports.ts';

/** The optional reducers of an AI request, by plan action name. */
export type AiReducer = 'exact_cache_lookup' | 'context_compile' | 'semantic_cache_lookup';

const TIER_NAME: Readonly<Record<AiReducer, string>> = {
  exact_cache_lookup: 'exact_cache',
  context_compile: 'context_compile',
  semantic_cache_lookup: 'semantic_cache',
};

/**
 * The rollout used when none is injected (a gateway built outside the
 * composed app): no canary, no switch, no guardrail — nothing restricted,
 * the request's own contract and mode apply.
 */
export const UNRESTRICTED_ROLLOUT: AiRollout = {
  decide: (request) => decideRollout(request, DEFAULT_ROLLOUT_CONFIG, DEFAULT_SWITCHES, false),
};

function switchedOff(decision: RolloutDecision, reducer: AiReducer): boolean {
  return decision.disabled.includes(reducer) || decision.disabled.includes(TIER_NAME[reducer]);
}

/** Whether the rollout lets `reducer` run for this request (policy is asked separately). */
export function aiRolloutAllows(decision: RolloutDecision, reducer: AiReducer): boolean {
  return !switchedOff(decision, reducer) && rolloutAllows(decision, TIER_NAME[reducer]);
}

/**
 * The reason recorded for a reducer the rollout skipped: the switch that
 * names it, else the decision's reasons (canary or default, then
 * bypass / force-exact / guardrail), worded as the byte-object planner words them.
 */
export function rolloutSkipReason(decision: RolloutDecision, reducer: AiReducer): string {
  if (switchedOff(decision, reducer)) return `rollout: reducer '${reducer}' is switched off (disable_reducer)`;
  return `rollout: ${decision.reasons.join('; ')}`;
}

/** The `denied_actions` entry of a reducer the rollout skipped. */
export function rolloutDenial(decision: RolloutDecision, reducer: AiReducer): AiDeniedAction {
  return { type: reducer, reasons: [rolloutSkipReason(decision, reducer)], matched_policy_ids: [] };
}

/** The decision as the plan and the manifest record it. */
export function rolloutRecord(decision: RolloutDecision): AiRolloutRecord {
  return { canary: decision.canary, reducers: decision.reducers, guardrail_tripped: decision.guardrail_tripped, reasons: decision.reasons };
}
