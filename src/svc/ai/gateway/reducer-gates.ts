/**
 * Settles whether one optional reducer of an AI request runs, checking in
 * the byte-object planner's order: the contract, then policy (its decision
 * already classified by `enforceDecision` in the gateway), then the
 * client's own `svc.cache: bypass`, then the rollout. The first check that
 * stops the reducer gives the reason; policy and rollout skips also yield
 * the `denied_actions` entry the plan records.
 */
import { EXACT_BYTES_CONTRACT } from '../../policy/evaluate.ts';
import type { PolicyDecision } from '../../policy/types.ts';
import type { RolloutDecision } from '../../rollout/rollout-decision.ts';
import type { ReducerGate } from './ai-plan.ts';
import { type AiReducer, aiRolloutAllows, rolloutDenial, rolloutSkipReason } from './ai-rollout.ts';

export interface GateInput {
  reducer: AiReducer;
  rollout: RolloutDecision;
  /** The contract the client asked for, and the one in force after rollout and policy obligations. */
  requestedContract: string;
  contract: string;
  mode: 'observe' | 'enforce';
  /** The policy decision for the reducer; absent for reducers policy is not asked about (the exact cache). */
  policy?: PolicyDecision | undefined;
  /** The client sent `svc.cache: bypass` (cache reducers only). */
  clientBypass?: boolean;
}

const NEEDS_SEMANTIC: ReadonlySet<AiReducer> = new Set(['context_compile', 'semantic_cache_lookup']);

const OBSERVE_NOTE: Readonly<Record<AiReducer, string>> = {
  exact_cache_lookup: 'observe: a would-be hit is recorded, not served',
  context_compile: 'observe: measured, not applied',
  semantic_cache_lookup: 'observe: a would-be hit is recorded, not served',
};

function contractSkip(g: GateInput): ReducerGate {
  if (g.requestedContract !== EXACT_BYTES_CONTRACT && g.rollout.contract === EXACT_BYTES_CONTRACT) {
    return { status: 'skipped', reason: rolloutSkipReason(g.rollout, g.reducer), denial: rolloutDenial(g.rollout, g.reducer) };
  }
  if (g.requestedContract !== EXACT_BYTES_CONTRACT) return { status: 'skipped', reason: 'contract is exact_bytes (policy obligation force_exact)' };
  return { status: 'skipped', reason: g.reducer === 'context_compile' ? 'contract is exact_bytes: the prompt passes unchanged' : 'contract is exact_bytes' };
}

function policySkip(g: GateInput, decision: PolicyDecision): ReducerGate | undefined {
  if (!decision.allow) {
    return { status: 'skipped', reason: 'denied by policy', denial: { type: g.reducer, reasons: decision.reasons, matched_policy_ids: decision.matched_policy_ids } };
  }
  if (decision.obligations.includes('requires_approval')) {
    // The gateway does not hold requests for approval; the reducer is left out instead.
    const reasons = ['requires_approval: the AI gateway does not wait for approvals, so the action is not run'];
    return { status: 'skipped', reason: 'awaiting approval', denial: { type: g.reducer, reasons, matched_policy_ids: decision.matched_policy_ids } };
  }
  return undefined;
}

export function gateReducer(g: GateInput): ReducerGate {
  if (NEEDS_SEMANTIC.has(g.reducer) && g.contract === EXACT_BYTES_CONTRACT) return contractSkip(g);
  if (g.policy) {
    const skip = policySkip(g, g.policy);
    if (skip) return skip;
  }
  if (g.clientBypass) return { status: 'skipped', reason: 'svc.cache is bypass' };
  if (!aiRolloutAllows(g.rollout, g.reducer)) return { status: 'skipped', reason: rolloutSkipReason(g.rollout, g.reducer), denial: rolloutDenial(g.rollout, g.reducer) };
  return g.mode === 'observe' ? { status: 'planned', reason: OBSERVE_NOTE[g.reducer] } : { status: 'planned' };
}
