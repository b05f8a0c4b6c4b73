/**
 * Confidence labels and support status, both functions of the support score
 * alone so a verifier can recompute them from a footer.
 *
 * Confidence: `high` ≥ 0.85, `medium` ≥ 0.65, `low` ≥ 0.40, `none` below.
 * Support status: `supported` ≥ the minimum support score of the acceptance
 * policy (default 0.65), `partially_supported` ≥ 0.40, else `unsupported`.
 */
import type { ConfidenceLabelValue, SupportStatusValue } from '../schemas/attribution-response.ts';

export const PARTIAL_SUPPORT_FLOOR = 0.4;

export function confidenceLabel(score: number): ConfidenceLabelValue {
  if (score >= 0.85) return 'high';
  if (score >= 0.65) return 'medium';
  if (score >= PARTIAL_SUPPORT_FLOOR) return 'low';
  return 'none';
}

export function supportStatus(score: number, minSupportScore: number): SupportStatusValue {
  if (score >= minSupportScore) return 'supported';
  if (score >= PARTIAL_SUPPORT_FLOOR) return 'partially_supported';
  return 'unsupported';
}
