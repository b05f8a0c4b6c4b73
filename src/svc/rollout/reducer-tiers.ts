/**
 * Which reducers a rollout stage lets run. `exact` reducers keep bytes
 * identical (the list lives in policy/semantic-actions.ts); everything else
 * is an advanced reducer, the part SLO guardrails and canaries switch off.
 */
import { EXACT_ACTIONS } from '../policy/semantic-actions.ts';

/** `none`: pass-through; `exact`: exact reducers only; `all`: exact and advanced. */
export type ReducerTier = 'none' | 'exact' | 'all';

const RANK: Record<ReducerTier, number> = { none: 0, exact: 1, all: 2 };

/** The more restrictive of two tiers. */
export function narrowerTier(a: ReducerTier, b: ReducerTier): ReducerTier {
  return RANK[a] <= RANK[b] ? a : b;
}

/** Whether `action` may run under `tier`; `hash` always may (it records, never changes bytes). */
export function tierAllows(tier: ReducerTier, action: string): boolean {
  if (action === 'hash') return true;
  if (tier === 'all') return true;
  if (tier === 'exact') return EXACT_ACTIONS.has(action);
  return false;
}
