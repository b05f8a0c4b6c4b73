/**
 * The deployment trust store (`attr-deployment-trust-store/v1`), exactly as the
 * spec defines it: no extra properties anywhere, at least one key, non-empty
 * key id and issuer, a PEM public key that begins with the PEM public-key
 * header line, and a non-empty, duplicate-free list of allowed attestation
 * types from a closed set. Published as JSON Schema in
 * src/attr/trust-store/schemas/attr-deployment-trust-store.v1.schema.json.
 */
import Type from 'typebox';
import type { Static } from 'typebox';

export const TRUST_STORE_SCHEMA_ID = 'attr-deployment-trust-store/v1';

/** The attestation types a trusted key may be allowed to sign. */
export const ATTESTATION_TYPES = [
  'audit_log_integrity',
  'backup_restore',
  'payment_processor',
  'public_surface_health',
  'receipt_public_key',
  'runtime_controls',
  'security_assessment',
] as const;
export type AttestationType = (typeof ATTESTATION_TYPES)[number];

/** The PEM header line every `public_key_pem` starts with (SubjectPublicKeyInfo). */
export const PEM_PUBLIC_KEY_HEADER = '-----BEGIN PUBLIC KEY-----';

export const TrustStoreKeySchema = Type.Object(
  {
    key_id: Type.String({ minLength: 1 }),
    issuer: Type.String({ minLength: 1 }),
    public_key_pem: Type.String({ pattern: '^-----BEGIN PUBLIC KEY-----' }),
    allowed_attestation_types: Type.Array(Type.Enum([...ATTESTATION_TYPES]), { minItems: 1, uniqueItems: true }),
  },
  { additionalProperties: false },
);

export const TrustStoreSchema = Type.Object(
  {
    schema: Type.Literal(TRUST_STORE_SCHEMA_ID),
    keys: Type.Array(TrustStoreKeySchema, { minItems: 1 }),
  },
  { additionalProperties: false, $id: TRUST_STORE_SCHEMA_ID },
);

export type TrustStore = Static<typeof TrustStoreSchema>;
export type TrustStoreKey = Static<typeof TrustStoreKeySchema>;
