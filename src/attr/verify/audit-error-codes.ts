/**
 * The vocabulary of `audit_errors` (and of verifier report errors): each
 * code belongs to one grounded display rule (0 = integrity of the response
 * itself). docs/attr-verification.md lists them with their meaning.
 */
import type { AuditError } from '../schemas/attribution-response.ts';

export const AUDIT_ERROR_RULES = {
  // 0: integrity and consistency of the document.
  schema_invalid: 0,
  event_hash_mismatch: 0,
  footer_hash_mismatch: 0,
  row_hash_mismatch: 0,
  rendered_footer_mismatch: 0,
  summary_mismatch: 0,
  display_inconsistent: 0,
  status_inconsistent: 0,
  audit_errors_inconsistent: 0,
  settlement_status_inconsistent: 0,
  event_claims_mismatch: 0,
  // 0: the operator signature, checked only against a trust store (docs/decisions/136).
  signature_missing: 0,
  signature_key_unknown: 0,
  signature_key_not_allowed: 0,
  signature_invalid: 0,
  // 1-15: the grounded display rules.
  unresolved_citation_marker: 1,
  unresolved_answer_link: 2,
  source_row_claim_mismatch: 3,
  evidence_preview_not_rendered: 3,
  evidence_span_hash_mismatch: 3,
  warrant_profile_mismatch: 4,
  warrant_force_mismatch: 4,
  source_contradicts_claim: 5,
  disagreement_profile_inconsistent: 5,
  verification_handle_missing: 6,
  verification_handle_forged: 6,
  source_locator_incomplete: 7,
  usage_metric_missing: 7,
  usage_metric_provenance_changed: 7,
  source_reference_mismatch: 7,
  temporal_claim_without_freshness: 8,
  claim_units_mismatch: 9,
  no_claim_units: 9,
  answer_not_normalized: 9,
  model_reliance_claim: 10,
  claim_evidence_row_missing: 11,
  claim_evidence_row_not_rendered: 11,
  claim_overstated: 11,
  claim_source_mismatch: 12,
  source_coverage_not_closed: 13,
  attribution_gap_open: 13,
  claim_support_below_minimum: 14,
  support_status_inconsistent: 14,
  non_escrow_share_below_minimum: 14,
  royalty_allocation_mismatch: 14,
  display_text_mismatch: 15,
  display_text_missing_footer: 15,
  display_text_missing_handle: 15,
} as const;

export type AuditErrorCode = keyof typeof AUDIT_ERROR_RULES;

export function auditError(code: AuditErrorCode, message: string, subject?: string): AuditError {
  const e: AuditError = { code, rule: AUDIT_ERROR_RULES[code], message };
  if (subject !== undefined) e.subject = subject;
  return e;
}

/** A stable key for comparing error lists regardless of order. */
export function auditErrorKey(e: AuditError): string {
  return `${e.rule}|${e.code}|${e.subject ?? ''}`;
}

export const RULE_NAMES: Readonly<Record<number, string>> = {
  1: 'citation_markers_resolve',
  2: 'answer_links_resolve',
  3: 'source_rows_match_claim_rows',
  4: 'evidence_force_matches_claim',
  5: 'no_contradicting_visible_source',
  6: 'verification_handles_present',
  7: 'source_locators_and_usage_metrics',
  8: 'temporal_wording_has_freshness',
  9: 'claim_units_match_claim_rows',
  10: 'no_hidden_model_reliance_claims',
  11: 'claim_evidence_rows_visible',
  12: 'claim_source_identity_matches',
  13: 'source_coverage_closed',
  14: 'royalty_share_and_minimum_support',
  15: 'display_text_holds_exact_footer',
};
