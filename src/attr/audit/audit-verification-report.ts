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
            Type.Literal('segment_missing'),
            Type.Literal('expected_head_missing'),
            Type.Literal('expected_head_mismatch'),
          ]),
          message: Type.String(),
          expected: Type.Union([Type.String(), Type.Null()]),
          found: Type.Union([Type.String(), Type.Null()]),
        },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
    /** The files verified, in chain order: closed segments `<path>.NNNNNN`, then the live file. */
    segments: Type.Array(
      Type.Object(
        {
          path: Type.String(),
          entries: Type.Integer({ minimum: 0 }),
          first_seq: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
          head_seq: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()]),
          head_hash: Type.Union([Type.String({ pattern: '^[0-9a-f]{64}$' }), Type.Null()]),
        },
        { additionalProperties: false },
      ),
    ),
    /** The checkpoint the log must contain (`--expect-head <seq>:<hash>`); null when none was given. */
    expected_head: Type.Union([
      Type.Object(
        { seq: Type.Integer({ minimum: 0 }), hash: Type.String({ pattern: '^[0-9a-f]{64}$' }), found: Type.Boolean() },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
  },
  { additionalProperties: false, $id: AUDIT_VERIFICATION_REPORT_SCHEMA_ID },
);

export type AuditVerificationReport = Static<typeof AuditVerificationReportSchema>;
export type AuditBreakKind = NonNullable<AuditVerificationReport['first_bad_entry']>['kind'];
