/**
 * The acceptance policy: minimum support score per claim and minimum share
 * of the distributable total that must reach known rights holders (rule 14).
 * The defaults are floors: an engine may be configured stricter (and says so
 * in its footer), but a verifier never accepts a footer that declares a
 * laxer policy than these.
 */
import type { AcceptancePolicy } from '../schemas/attribution-response.ts';

export const DEFAULT_ACCEPTANCE_POLICY: Readonly<AcceptancePolicy> = Object.freeze({
  min_support_score: 0.65,
  min_non_escrow_share: 0.5,
});

/** The stricter of a declared policy and the default floors. */
export function effectivePolicy(declared: Partial<AcceptancePolicy> | undefined): AcceptancePolicy {
  return {
    min_support_score: Math.max(DEFAULT_ACCEPTANCE_POLICY.min_support_score, declared?.min_support_score ?? 0),
    min_non_escrow_share: Math.max(DEFAULT_ACCEPTANCE_POLICY.min_non_escrow_share, declared?.min_non_escrow_share ?? 0),
  };
}
