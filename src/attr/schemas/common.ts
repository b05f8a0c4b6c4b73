/**
 * Small schema building blocks shared by the attr response and the two
 * verification reports. Defined once here so every schema uses the same
 * spelling of a hash, a decimal amount or an audit error.
 */
import Type from 'typebox';

export const Sha256Hex = Type.String({ pattern: '^[0-9a-f]{64}$', description: 'lower-case hex SHA-256' });

/** A non-negative decimal amount as a string (`"12.50"`). */
export const DecimalString = Type.String({ pattern: '^(0|[1-9][0-9]*)(\\.[0-9]+)?$' });

export const VerifyHandle = Type.String({ pattern: '^attr://verify/source-footer/[0-9a-f]{32}$' });

/** One fail-closed verifier finding (vocabulary: docs/attr-verification.md). */
export const AuditErrorSchema = Type.Object(
  {
    code: Type.String({ minLength: 1 }),
    rule: Type.Integer({ minimum: 0, maximum: 15, description: 'grounded display rule number; 0 = integrity or schema' }),
    message: Type.String(),
    subject: Type.Optional(Type.String({ description: 'the marker, URI, label or hash the finding is about' })),
  },
  { additionalProperties: false },
);
