/**
 * One line of the attr audit log (`attr-audit-entry/v1`). The log keeps
 * hashes, never prompt or answer text (docs/decisions/121-audit-log-hashes-only.md):
 * an auditor who holds a response can prove it was logged by recomputing
 * `event_hash` / `prompt_sha256`, and the log itself leaks nothing.
 *
 * Chain rule (src/core/hash-chain.ts): `entry_hash = SHA-256(prev_hash + "\n" +
 * canonical JSON of the entry without prev_hash and entry_hash)`.
 */
import Type from 'typebox';
import type { Static } from 'typebox';
import { canonicalJson } from '../../core/canonical-json.ts';

export const AUDIT_ENTRY_SCHEMA_ID = 'attr-audit-entry/v1';

const Sha256 = Type.String({ pattern: '^[0-9a-f]{64}$' });

/** What the caller supplies; the log adds schema, seq, recorded_at and the chain fields. */
export const AuditRecordSchema = Type.Object(
  {
    request_id: Type.String({ minLength: 1 }),
    route: Type.Union([Type.Literal('attribute'), Type.Literal('provider_attribute')]),
    operator: Type.String({ minLength: 1 }),
    /** `ready`/`blocked`: an attribution response was produced; `refused`: the request failed closed before one was. */
    outcome: Type.Union([Type.Literal('ready'), Type.Literal('blocked'), Type.Literal('refused')]),
    error_code: Type.Union([Type.String(), Type.Null()]),
    event_id: Type.Union([Type.String(), Type.Null()]),
    event_hash: Type.Union([Sha256, Type.Null()]),
    event_created_at: Type.Union([Type.String(), Type.Null()]),
    footer_hash: Type.Union([Sha256, Type.Null()]),
    source_count: Type.Integer({ minimum: 0 }),
    audit_error_count: Type.Integer({ minimum: 0 }),
    prompt_sha256: Sha256,
    answer_sha256: Type.Union([Sha256, Type.Null()]),
    gross_revenue: Type.Union([Type.String(), Type.Null()]),
    provider: Type.Union([
      Type.Object(
        { provider_id: Type.String(), model: Type.String(), response_sha256: Type.Union([Sha256, Type.Null()]) },
        { additionalProperties: false },
      ),
      Type.Null(),
    ]),
  },
  { additionalProperties: false },
);

export const AuditEntrySchema = Type.Object(
  {
    schema: Type.Literal(AUDIT_ENTRY_SCHEMA_ID),
    seq: Type.Integer({ minimum: 1 }),
    recorded_at: Type.String(),
    prev_hash: Sha256,
    entry_hash: Sha256,
    record: AuditRecordSchema,
  },
  { additionalProperties: false, $id: AUDIT_ENTRY_SCHEMA_ID },
);

export type AuditRecord = Static<typeof AuditRecordSchema>;
export type AuditEntry = Static<typeof AuditEntrySchema>;

/** The text the entry hash covers: the entry minus its two chain fields. */
export function auditEntryCanonicalBody(entry: Omit<AuditEntry, 'prev_hash' | 'entry_hash'> | AuditEntry): string {
  const { schema, seq, recorded_at, record } = entry;
  return canonicalJson({ schema, seq, recorded_at, record });
}
