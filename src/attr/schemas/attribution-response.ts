/**
 * `attr-service-attribution-response/v1`: the one definition of the
 * attribution response. The engine's TypeScript types are derived from it
 * (`Static`), the verifier validates untrusted input against it, and
 * `attribution-response.schema.json` is generated from it.
 */
import Type, { type Static } from 'typebox';
import { AuditErrorSchema, DecimalString, Sha256Hex, VerifyHandle } from './common.ts';

export const RESPONSE_SCHEMA_ID = 'attr-service-attribution-response/v1';
export const FOOTER_SCHEMA_ID = 'attr-source-footer/v1';
export const EVENT_SCHEMA_ID = 'attr-usage-event/v1';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);
const Strict = { additionalProperties: false } as const;

export const ConfidenceLabel = Type.Union([Type.Literal('high'), Type.Literal('medium'), Type.Literal('low'), Type.Literal('none')]);
export const SupportStatus = Type.Union([Type.Literal('supported'), Type.Literal('partially_supported'), Type.Literal('unsupported')]);
export const SettlementStatus = Type.Union([
  Type.Literal('candidate'),
  Type.Literal('zero_amount'),
  Type.Literal('escrow'),
  Type.Literal('withheld'),
]);
export const GroundingVerdict = Type.Union([
  Type.Literal('grounded'),
  Type.Literal('display_unsafe'),
  Type.Literal('partially_grounded'),
  Type.Literal('ungrounded'),
]);
export const GapVerdict = Type.Union([Type.Literal('closed'), Type.Literal('open')]);

export const WarrantProfileSchema = Type.Object(
  {
    relation: Type.Union([Type.Literal('causal'), Type.Literal('correlational'), Type.Literal('descriptive')]),
    modality: Type.Union([Type.Literal('certain'), Type.Literal('asserted'), Type.Literal('probable'), Type.Literal('possible')]),
    scope: Type.Union([Type.Literal('universal'), Type.Literal('general'), Type.Literal('particular'), Type.Literal('unspecified')]),
    temporal: Type.Union([Type.Literal('present_relative'), Type.Literal('dated'), Type.Literal('atemporal')]),
    numeric: Type.Union([Type.Literal('exact'), Type.Literal('approximate'), Type.Literal('bounded'), Type.Literal('none')]),
  },
  Strict,
);

export const DisagreementProfileSchema = Type.Object(
  {
    agreement_count: Type.Integer({ minimum: 0 }),
    disagreement_count: Type.Integer({ minimum: 0 }),
    negation_conflict_count: Type.Integer({ minimum: 0 }),
    numeric_conflict_count: Type.Integer({ minimum: 0 }),
  },
  Strict,
);

export const UsageMetricMethodsSchema = Type.Object(
  { support: Type.String(), text_match: Type.String(), weight: Type.String(), payout: Type.String() },
  Strict,
);

export const ClaimRowSchema = Type.Object(
  {
    label: Type.String({ pattern: '^C[1-9][0-9]*$' }),
    claim_hash: Sha256Hex,
    claim_preview: Type.String(),
    support_status: SupportStatus,
    support_score: Type.Number({ minimum: 0, maximum: 1 }),
    confidence_label: ConfidenceLabel,
    source_label: Nullable(Type.String()),
    source_id: Nullable(Type.String()),
    work_id: Nullable(Type.String()),
    chunk_id: Nullable(Type.String()),
    evidence_span_hash: Nullable(Sha256Hex),
    evidence_start: Nullable(Type.Integer({ minimum: 0 })),
    evidence_end: Nullable(Type.Integer({ minimum: 0 })),
    evidence_preview: Nullable(Type.String()),
    claim_warrant_profile: WarrantProfileSchema,
    evidence_warrant_profile: Nullable(WarrantProfileSchema),
    claim_force_flags: Type.Array(Type.String()),
    evidence_force_flags: Type.Array(Type.String()),
    warrant_mismatch_flags: Type.Array(Type.String()),
    warrant_strength_status: Type.Union([Type.Literal('matched'), Type.Literal('overstated'), Type.Literal('no_evidence')]),
    source_disagreement_profile: DisagreementProfileSchema,
    agreement_source_labels: Type.Array(Type.String()),
    disagreement_source_labels: Type.Array(Type.String()),
    source_disagreement_status: Type.Union([Type.Literal('consistent'), Type.Literal('contradicted')]),
  },
  Strict,
);

export const SourceRowSchema = Type.Object(
  {
    label: Type.String({ pattern: '^S[1-9][0-9]*$' }),
    role: Type.Union([Type.Literal('evidence'), Type.Literal('disagreement')]),
    source_id: Type.String({ minLength: 1 }),
    work_id: Type.String({ minLength: 1 }),
    title: Type.String(),
    uri: Type.String({ minLength: 1 }),
    verify: VerifyHandle,
    hash: Sha256Hex,
    content_hash_prefix: Type.String({ pattern: '^[0-9a-f]{12}$' }),
    chunk_ids: Type.Array(Type.String()),
    rights_holder_id: Nullable(Type.String()),
    royalty_eligible: Type.Boolean(),
    published_at: Nullable(Type.String()),
    updated_at: Nullable(Type.String()),
    supported_claim_hashes: Type.Array(Sha256Hex),
    support: Type.Number({ minimum: 0, maximum: 1 }),
    text_match: Type.Number({ minimum: 0, maximum: 1 }),
    weight: DecimalString,
    payout: DecimalString,
    settlement_status: SettlementStatus,
    usage_metric_profile: Type.String(),
    usage_metric_scope: Type.String(),
    usage_metric_methods: UsageMetricMethodsSchema,
    row_hash: Sha256Hex,
  },
  Strict,
);

export const RoyaltySchema = Type.Object(
  {
    gross_revenue: DecimalString,
    distributable_total: DecimalString,
    amount_scale: Type.Integer({ minimum: 0, maximum: 18 }),
    allocation_method: Type.String(),
    escrow_weight: DecimalString,
    escrow_amount: DecimalString,
    escrow_settlement_status: SettlementStatus,
    escrow_claim_hashes: Type.Array(Sha256Hex),
  },
  Strict,
);

export const AcceptancePolicySchema = Type.Object(
  {
    min_support_score: Type.Number({ minimum: 0, maximum: 1 }),
    min_non_escrow_share: Type.Number({ minimum: 0, maximum: 1 }),
  },
  Strict,
);

/**
 * The operator's Ed25519 signature over `attr-source-footer-signature/v1\n<key_id>\n<footer_hash>`
 * (docs/decisions/136-signed-footers.md); null when the deployment signs no footers.
 */
export const FooterSignatureSchema = Type.Object(
  {
    algorithm: Type.Literal('Ed25519'),
    key_id: Type.String({ minLength: 1, maxLength: 256 }),
    value: Type.String({ pattern: '^[A-Za-z0-9_-]{86}$', description: 'base64url (no padding) of the 64-byte signature' }),
  },
  Strict,
);

export const SourceFooterSchema = Type.Object(
  {
    schema: Type.Literal(FOOTER_SCHEMA_ID),
    event_id: Type.String({ minLength: 1 }),
    event_hash: Sha256Hex,
    status: Type.Union([Type.Literal('ready'), Type.Literal('blocked')]),
    grounding_verdict: GroundingVerdict,
    attribution_gap_verdict: GapVerdict,
    blocking_rules: Type.Array(Type.Integer({ minimum: 0, maximum: 15 })),
    disclosures: Type.Array(Type.String()),
    acceptance_policy: AcceptancePolicySchema,
    royalty: RoyaltySchema,
    source_rows: Type.Array(SourceRowSchema),
    claim_rows: Type.Array(ClaimRowSchema),
    rendered_text: Type.String(),
    footer_hash: Sha256Hex,
    signature: Nullable(FooterSignatureSchema),
  },
  Strict,
);

export const SourceReferenceSchema = Type.Object(
  {
    label: Type.String(),
    role: Type.Union([Type.Literal('evidence'), Type.Literal('disagreement')]),
    source_id: Type.String(),
    work_id: Type.String(),
    uri: Type.String(),
    content_sha256: Sha256Hex,
  },
  Strict,
);

export const RoyaltyShareSchema = Type.Object(
  { label: Type.String(), weight: DecimalString, amount: DecimalString },
  Strict,
);

export const UsageEventSchema = Type.Object(
  {
    schema: Type.Literal(EVENT_SCHEMA_ID),
    event_id: Type.String({ minLength: 1 }),
    request_id: Type.String({ minLength: 1 }),
    operator: Type.String({ minLength: 1 }),
    created_at: Type.String({ minLength: 1 }),
    answer_origin: Type.Union([Type.Literal('caller'), Type.Literal('demo'), Type.Literal('provider')]),
    prompt_sha256: Sha256Hex,
    answer_sha256: Sha256Hex,
    provider: Nullable(
      Type.Object({ provider_id: Type.String(), model: Type.String(), response_sha256: Sha256Hex }, Strict),
    ),
    corpus_sha256: Sha256Hex,
    engine_version: Type.String(),
    gross_revenue: DecimalString,
    distributable_total: DecimalString,
    amount_scale: Type.Integer({ minimum: 0, maximum: 18 }),
    claim_hashes: Type.Array(Sha256Hex),
    source_references: Type.Array(SourceReferenceSchema),
    royalty_shares: Type.Array(RoyaltyShareSchema),
    event_hash: Sha256Hex,
  },
  Strict,
);

export const SummarySchema = Type.Object(
  {
    event_id: Type.String(),
    event_hash: Sha256Hex,
    source_count: Type.Integer({ minimum: 0 }),
    footer_hash: Sha256Hex,
    royalty_share_count: Type.Integer({ minimum: 0 }),
    grounding_verdict: GroundingVerdict,
    attribution_gap_verdict: GapVerdict,
    claim_unit_count: Type.Integer({ minimum: 0 }),
    supported_claim_count: Type.Integer({ minimum: 0 }),
  },
  Strict,
);

export const DisplaySchema = Type.Object(
  {
    answer_text: Type.String(),
    separator: Type.String(),
    rendered_text: Type.String(),
  },
  Strict,
);

export const AttributionResponseSchema = Type.Object(
  {
    schema: Type.Literal(RESPONSE_SCHEMA_ID),
    status: Type.Union([Type.Literal('ready'), Type.Literal('blocked')]),
    summary: SummarySchema,
    source_footer: SourceFooterSchema,
    display: DisplaySchema,
    audit_errors: Type.Array(AuditErrorSchema),
    event: UsageEventSchema,
  },
  { ...Strict, $id: 'https://attr.invalid/schemas/attr-service-attribution-response-v1.json', title: RESPONSE_SCHEMA_ID },
);

export type AttributionResponse = Static<typeof AttributionResponseSchema>;
export type SourceFooter = Static<typeof SourceFooterSchema>;
export type FooterSignature = Static<typeof FooterSignatureSchema>;
export type SourceRow = Static<typeof SourceRowSchema>;
export type ClaimRow = Static<typeof ClaimRowSchema>;
export type UsageEvent = Static<typeof UsageEventSchema>;
export type WarrantProfile = Static<typeof WarrantProfileSchema>;
export type DisagreementProfile = Static<typeof DisagreementProfileSchema>;
export type AuditError = Static<typeof AuditErrorSchema>;
export type RoyaltySection = Static<typeof RoyaltySchema>;
export type AcceptancePolicy = Static<typeof AcceptancePolicySchema>;
export type ConfidenceLabelValue = Static<typeof ConfidenceLabel>;
export type SupportStatusValue = Static<typeof SupportStatus>;
export type SettlementStatusValue = Static<typeof SettlementStatus>;
export type GroundingVerdictValue = Static<typeof GroundingVerdict>;
