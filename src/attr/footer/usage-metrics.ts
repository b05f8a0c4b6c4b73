/**
 * The usage-metric disclosure every source row carries. These are
 * observable grounding and settlement-allocation metrics, computed from the
 * answer text and the corpus; they say nothing about what a model internally
 * relied on. The profile, scope and method ids are published constants: a
 * row that shows different ones has been altered (rule 7).
 */

export const USAGE_METRIC_PROFILE = 'attr-observable-grounding/v1';
export const USAGE_METRIC_SCOPE = 'answer-claim-units/v1';
export const USAGE_METRIC_METHODS = {
  support: 'bm25-candidates+idf-weighted-span-recall/v1',
  text_match: 'span-token-jaccard/v1',
  weight: 'supported-claim-share/largest-remainder/v1',
  payout: 'decimal-largest-remainder/v1',
} as const;
export const USAGE_METRIC_NAMES = ['support', 'text_match', 'weight', 'payout'] as const;
export const ALLOCATION_METHOD = 'equal-claim-share/largest-remainder/v1';
