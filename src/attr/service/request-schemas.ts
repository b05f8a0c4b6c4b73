/**
 * Request and error body schemas of the HTTP API, defined once: fastify
 * validates requests with them and @fastify/swagger publishes them in
 * /openapi.json. Sizes are enforced in bytes by the attribution domain
 * (the limits are configurable), so the schemas carry only shape.
 */
import Type from 'typebox';
import type { Static } from 'typebox';
import { ChatMessageSchema } from '../provider/chat-messages.ts';

/** A decimal amount as a string; sign and scale are checked by the engine (negative values are rejected). */
const GrossRevenue = Type.String({ minLength: 1, maxLength: 64, description: 'Decimal amount, e.g. "12.50". Negative values are rejected.' });

export const AttributeRequestSchema = Type.Object(
  {
    prompt: Type.String({ minLength: 1, description: 'The question (limit: limits.max_prompt_bytes UTF-8 bytes).' }),
    output: Type.Optional(Type.String({ minLength: 1, description: 'Externally generated answer to attribute; omitted: a deterministic demonstration answer.' })),
    gross_revenue: GrossRevenue,
  },
  { additionalProperties: false },
);
export type AttributeRequest = Static<typeof AttributeRequestSchema>;

export const ProviderAttributeRequestSchema = Type.Object(
  {
    provider_id: Type.String({ minLength: 1, maxLength: 64 }),
    messages: Type.Array(ChatMessageSchema, { minItems: 1 }),
    gross_revenue: GrossRevenue,
  },
  { additionalProperties: false },
);
export type ProviderAttributeRequest = Static<typeof ProviderAttributeRequestSchema>;

/** Every error response: `{ error: { code, message, retryable, details? } }` (src/attr/errors.ts). */
export const ErrorBodySchema = Type.Object(
  {
    error: Type.Object(
      {
        code: Type.String(),
        message: Type.String(),
        retryable: Type.Boolean(),
        details: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
