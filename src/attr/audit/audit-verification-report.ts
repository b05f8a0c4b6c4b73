/**
 * The report of `attr-service-audit-verify` (`attr-audit-verification-report/v1`),
 * published as JSON Schema in src/attr/audit/schemas/.
 */
import Type from 'typebox';
import type { Static } from 'typebox';

export const AUDIT_VERIFICATION_REPORT_SCHEMA_ID = 'attr-audit-verification-report/v1';

export const AuditVerificationReportSchema = Type.Object(
  {
    schema: Type.Literal(AUDIT_VERIFICATION_REPORT_SCHEMA_ID),
    audit_log_path: Type.String(),
    ok: Type.Boolean(),
    /** Lines examined, including the first bad one. */
    entries_checked: Type.Integer({ minimum: 0 }),
    /** Sequence number and hash of the last entry that verified (null for an empty log). */
    head_seq: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
    head_hash: Type.Union([Type.String({ pattern: '^[0-9a-f]{64}$' }), Type.Null()]),
    first_bad_entry: Type.Union([
      Type.Object(
        {
          line: Type.Integer({ minimum: 0 }),
          seq: Type.Union([Type.Integer(), Type.Null()]),
          kind: Type.Union([
            Type.Literal('unreadable'),
            Type.Literal('parse_error'),
            Type.Literal('schema_invalid'),
            Type.Literal('sequence_gap'),
            Type.Literal('prev_hash_mismatch'),
            Type.Literal('entry_hash_mismatch'),
          ]),
          message: Type.String(),
          expected: Type.Union([Type.String(), Type.Null()]),
          found: Type.Union([Type.String(), Type.Null()]),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
  },
  { additionalProperties: false, $id: AUDIT_VERIFICATION_REPORT_SCHEMA_ID },
);

export type AuditVerificationReport = Static<typeof AuditVerificationReportSchema>;
export type AuditBreakKind = NonNullable<AuditVerificationReport['first_bad_entry']>['kind'];
