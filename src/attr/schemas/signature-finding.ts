/**
 * What a verifier found about a footer's operator signature
 * (docs/decisions/136-signed-footers.md). Shared by the footer and response
 * verification reports.
 */
import Type, { type Static } from 'typebox';

const Nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()]);

export const SignatureFindingSchema = Type.Object(
  {
    present: Type.Boolean({ description: 'the footer carries a signature' }),
    trust_store_checked: Type.Boolean({ description: 'a trust store was given, so the signature was checked' }),
    valid: Nullable(Type.Boolean({ description: 'null when no trust store was given' })),
    key_id: Nullable(Type.String()),
    issuer: Nullable(Type.String({ description: "the trust store's issuer of the signing key, when the signature verified" })),
  },
  { additionalProperties: false },
);

export type SignatureFinding = Static<typeof SignatureFindingSchema>;
