/**
 * `attr-service-response-verification/v1`: the output of
 * `attr-service-response-verify`, including `source_grounding_acceptance`
 * with every field the spec lists under "Source acceptance report fields".
 */
import Type, { type Static } from 'typebox';
import { AuditErrorSchema } from './common.ts';
import { SignatureFindingSchema } from './signature-finding.ts';

export const RESPONSE_VERIFICATION_SCHEMA_ID = 'attr-service-response-verification/v1';

const Status = Type.Union([Type.Literal('passed'), Type.Literal('failed')]);
const Strings = Type.Array(Type.String());
const Count = Type.Integer({ minimum: 0 });
const Strict = { additionalProperties: false } as const;

export const RuleResultSchema = Type.Object(
  {
    rule: Type.Integer({ minimum: 1, maximum: 15 }),
    name: Type.String(),
    status: Type.Union([Type.Literal('passed'), Type.Literal('failed'), Type.Literal('not_checked')]),
    error_count: Count,
  },
  Strict,
);

export const SourceGroundingAcceptanceSchema = Type.Object(
  {
    status: Status,
    rule_results: Type.Array(RuleResultSchema),
    // Citations (rule 1).
    answer_citation_marker_count: Count,
    resolved_answer_citation_marker_count: Count,
    citation_marker_status: Status,
    answer_citation_markers: Strings,
    resolved_answer_citation_markers: Strings,
    unresolved_answer_citation_markers: Strings,
    // Links (rule 2).
    answer_link_uris: Strings,
    resolved_answer_link_uris: Strings,
    unresolved_answer_link_uris: Strings,
    answer_link_uri_count: Count,
    resolved_answer_link_uri_count: Count,
    unresolved_answer_link_uri_count: Count,
    answer_link_status: Status,
    // Usage metrics (rule 7).
    source_usage_metric_names: Strings,
    source_usage_metric_row_count: Count,
    source_usage_metric_status: Status,
    source_usage_metric_profile: Type.String(),
    source_usage_metric_scope: Type.String(),
    source_usage_metric_methods: Type.Record(Type.String(), Type.String()),
    source_usage_metric_provenance_count: Count,
    source_usage_metric_provenance_status: Status,
    // Locators and identity (rules 6, 7).
    source_row_count: Count,
    source_locator_count: Count,
    source_locator_status: Status,
    source_identity_count: Count,
    source_identity_status: Status,
    // Time (rule 8).
    temporal_claim_markers: Strings,
    source_temporal_metadata_count: Count,
    temporal_grounding_status: Status,
    // Claim coverage (rule 9).
    answer_claim_unit_count: Count,
    answer_claim_row_coverage_count: Count,
    uncovered_answer_claim_hashes: Strings,
    extra_claim_row_hashes: Strings,
    answer_claim_coverage_status: Status,
    // Model reliance (rule 10).
    model_reliance_claim_markers: Strings,
    model_reliance_claim_marker_count: Count,
    model_reliance_claim_status: Status,
    // Claim evidence (rules 3, 11).
    supported_claim_count: Count,
    claim_evidence_row_count: Count,
    claim_evidence_status: Status,
    // Warrant (rules 4, 11).
    claim_warrant_profile: Type.Object(
      { matched: Count, overstated: Count, no_evidence: Count, mismatch_flags: Type.Record(Type.String(), Count) },
      Strict,
    ),
    claim_warrant_strength_count: Count,
    claim_warrant_strength_status: Status,
    // Disagreement (rule 5).
    source_disagreement_profile: Type.Object(
      { consistent: Count, contradicted: Count, negation_conflicts: Count, numeric_conflicts: Count },
      Strict,
    ),
    claim_source_disagreement_count: Count,
    claim_source_disagreement_status: Status,
    // Claim ↔ source identity (rule 12) and closure (rule 13).
    claim_source_match_count: Count,
    claim_source_match_status: Status,
    claim_source_closure_count: Count,
    claim_source_closure_status: Status,
    // Attribution gap.
    attribution_gap_status: Status,
    attribution_gap_verdict: Type.Union([Type.Literal('closed'), Type.Literal('open')]),
    accessed_source_count: Count,
    credited_source_count: Count,
    open_gap_failure_count: Count,
    open_gap_failures: Type.Object(
      { accessed_not_credited: Count, uncovered_claims: Count, coverage_not_closed: Count },
      Strict,
    ),
    // Royalty share and minimum support (rule 14).
    min_support_score: Type.Number(),
    lowest_claim_support_score: Type.Union([Type.Number(), Type.Null()]),
    minimum_support_status: Status,
    non_escrow_share: Type.String(),
    min_non_escrow_share: Type.Number(),
    royalty_share_status: Status,
    // Display text (rule 15).
    display_text_status: Type.Union([Type.Literal('matched'), Type.Literal('mismatched'), Type.Literal('not_checked')]),
  },
  Strict,
);

export const ResponseVerificationReportSchema = Type.Object(
  {
    schema: Type.Literal(RESPONSE_VERIFICATION_SCHEMA_ID),
    production_display_ready: Type.Boolean(),
    verification_status: Status,
    internally_consistent: Type.Boolean(),
    response_status: Type.Union([Type.Literal('ready'), Type.Literal('blocked'), Type.Null()]),
    event_id: Type.Union([Type.String(), Type.Null()]),
    event_hash: Type.Union([Type.String(), Type.Null()]),
    footer_hash: Type.Union([Type.String(), Type.Null()]),
    integrity: Type.Object(
      {
        schema_valid: Type.Boolean(),
        event_hash_valid: Type.Boolean(),
        footer_hash_valid: Type.Boolean(),
        row_hashes_valid: Type.Boolean(),
        rendered_footer_valid: Type.Boolean(),
        display_consistent: Type.Boolean(),
        summary_consistent: Type.Boolean(),
        status_consistent: Type.Boolean(),
        audit_errors_consistent: Type.Boolean(),
      },
      Strict,
    ),
    signature: SignatureFindingSchema,
    errors: Type.Array(AuditErrorSchema),
    source_grounding_acceptance: Type.Union([SourceGroundingAcceptanceSchema, Type.Null()]),
  },
  { ...Strict, $id: 'https://attr.invalid/schemas/attr-service-response-verification-v1.json', title: RESPONSE_VERIFICATION_SCHEMA_ID },
);

export type SourceGroundingAcceptance = Static<typeof SourceGroundingAcceptanceSchema>;
export type ResponseVerificationReport = Static<typeof ResponseVerificationReportSchema>;
export type RuleResult = Static<typeof RuleResultSchema>;
