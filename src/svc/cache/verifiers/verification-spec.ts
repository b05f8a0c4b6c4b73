/**
 * The verifier specification a client or the gateway attaches to a cached
 * value (spec: Cache entry → `verification`). It names a verifier type plus
 * that type's parameters; the server runs it. Defined once with TypeBox so
 * the same schema validates requests and is published as JSON Schema.
 */
import Type from 'typebox';

export const VERIFIER_TYPES = ['chat_completion', 'embedding_shape', 'json_shape', 'non_empty_text', 'sha256'] as const;
export type VerifierType = (typeof VERIFIER_TYPES)[number];

export const ChatCompletionVerification = Type.Object({ type: Type.Literal('chat_completion') }, { additionalProperties: false });

export const EmbeddingShapeVerification = Type.Object(
  {
    type: Type.Literal('embedding_shape'),
    /** Expected vector length; when absent every vector must share one length. */
    dimensions: Type.Optional(Type.Integer({ minimum: 1, maximum: 65536 })),
    /** Expected number of vectors. */
    count: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

export const JsonShapeVerification = Type.Object(
  {
    type: Type.Literal('json_shape'),
    required_keys: Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { minItems: 1, maxItems: 256 }),
  },
  { additionalProperties: false },
);

export const NonEmptyTextVerification = Type.Object({ type: Type.Literal('non_empty_text') }, { additionalProperties: false });

export const Sha256Verification = Type.Object(
  {
    type: Type.Literal('sha256'),
    /** Hex SHA-256 the canonical JSON of the value (or the text, for a string value) must have. */
    sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }),
  },
  { additionalProperties: false },
);

export const VerificationSpec = Type.Union([
  ChatCompletionVerification,
  EmbeddingShapeVerification,
  JsonShapeVerification,
  NonEmptyTextVerification,
  Sha256Verification,
]);

export type VerificationSpec = Type.Static<typeof VerificationSpec>;
