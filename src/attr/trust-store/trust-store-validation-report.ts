/**
 * The report of `attr-trust-store-validate` (`attr-trust-store-validation-report/v1`).
 * `schema_issues` are violations of the published trust-store JSON Schema;
 * `key_issues` are checks the schema cannot express (the PEM actually parses as
 * a public key, key ids are unique).
 */
import Type from 'typebox';
import type { Static } from 'typebox';

export const TRUST_STORE_VALIDATION_REPORT_SCHEMA_ID = 'attr-trust-store-validation-report/v1';

const Issue = Type.Object({ path: Type.String(), message: Type.String() }, { additionalProperties: false });

export const TrustStoreValidationReportSchema = Type.Object(
  {
    schema: Type.Literal(TRUST_STORE_VALIDATION_REPORT_SCHEMA_ID),
    file: Type.String(),
    valid: Type.Boolean(),
    schema_issues: Type.Array(Issue),
    key_issues: Type.Array(Issue),
    keys: Type.Array(
      Type.Object(
        {
          key_id: Type.String(),
          issuer: Type.String(),
          /** SHA-256 of the DER-encoded SubjectPublicKeyInfo; null when the PEM does not parse. */
          spki_sha256: Type.Union([Type.String({ pattern: '^[0-9a-f]{64}$' }), Type.Null()]),
          allowed_attestation_types: Type.Array(Type.String()),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false, $id: TRUST_STORE_VALIDATION_REPORT_SCHEMA_ID },
);

export type TrustStoreValidationReport = Static<typeof TrustStoreValidationReportSchema>;
