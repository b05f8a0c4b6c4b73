/**
 * `attr-source-footer-verification/v1`: the output of
 * `attr-source-footer-verify`, which checks a footer without the private
 * full response.
 */
import Type, { type Static } from 'typebox';
import { AuditErrorSchema } from './common.ts';
import { RuleResultSchema } from './response-verification-report.ts';
import { SignatureFindingSchema } from './signature-finding.ts';

export const FOOTER_VERIFICATION_SCHEMA_ID = 'attr-source-footer-verification/v1';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const FooterVerificationReportSchema = Type.Object(
  {
    schema: Type.Literal(FOOTER_VERIFICATION_SCHEMA_ID),
    status: Type.Union([Type.Literal('passed'), Type.Literal('failed')]),
    public_reliance_ready: Type.Boolean(),
    footer_status: Nullable(Type.Union([Type.Literal('ready'), Type.Literal('blocked')])),
    event_id: Nullable(Type.String()),
    event_hash: Nullable(Type.String()),
    footer_hash: Nullable(Type.String()),
    checks: Type.Object(
      {
        schema_valid: Type.Boolean(),
        row_hashes_valid: Type.Boolean(),
        evidence_span_hashes_valid: Type.Boolean(),
        handles_valid: Type.Boolean(),
        footer_hash_valid: Type.Boolean(),
        rendered_footer_valid: Type.Boolean(),
        event_binding_valid: Type.Boolean(),
        status_consistent: Type.Boolean(),
        display_text_holds_footer: Nullable(Type.Boolean()),
        signature_valid: Nullable(Type.Boolean({ description: 'null when no trust store was given' })),
      },
      { additionalProperties: false },
    ),
    source_row_count: Type.Integer({ minimum: 0 }),
    claim_row_count: Type.Integer({ minimum: 0 }),
    verified_handle_count: Type.Integer({ minimum: 0 }),
    signature: SignatureFindingSchema,
    answer_rules_checked: Type.Boolean(),
    rule_results: Type.Array(RuleResultSchema),
    errors: Type.Array(AuditErrorSchema),
  },
  {
    additionalProperties: false,
    $id: 'https://attr.invalid/schemas/attr-source-footer-verification-v1.json',
    title: FOOTER_VERIFICATION_SCHEMA_ID,
  },
);

export type FooterVerificationReport = Static<typeof FooterVerificationReportSchema>;
