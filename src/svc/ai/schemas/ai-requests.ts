/**
 * Request schemas of the OpenAI-compatible routes. Only what the gateway
 * relies on is constrained; every other OpenAI field passes through to the
 * provider untouched (new upstream features keep working), and is part of
 * the exact cache key unless listed in NON_OUTPUT_FIELDS.
 */
import Type from 'typebox';
import { SvcExtension } from './svc-extension.ts';

const ContentPart = Type.Object({ type: Type.String() }, { additionalProperties: true });

export const ChatMessage = Type.Object(
  {
    role: Type.String({ minLength: 1, maxLength: 64 }),
    content: Type.Optional(Type.Union([Type.String(), Type.Array(ContentPart), Type.Null()])),
  },
  { additionalProperties: true },
);
export type ChatMessage = Type.Static<typeof ChatMessage> & Record<string, unknown>;

export const StreamOptions = Type.Object({ include_usage: Type.Optional(Type.Boolean()) }, { additionalProperties: true });

export const ChatCompletionRequest = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 200 }),
    messages: Type.Array(ChatMessage, { minItems: 1, maxItems: 10_000 }),
    stream: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    stream_options: Type.Optional(Type.Union([StreamOptions, Type.Null()])),
    svc: Type.Optional(SvcExtension),
  },
  { additionalProperties: true, $id: 'ChatCompletionRequest' },
);
export type ChatCompletionRequest = Type.Static<typeof ChatCompletionRequest> & Record<string, unknown>;

export const CompletionRequest = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 200 }),
    prompt: Type.Union([Type.String(), Type.Array(Type.String(), { minItems: 1 }), Type.Array(Type.Integer()), Type.Array(Type.Array(Type.Integer()))]),
    stream: Type.Optional(Type.Union([Type.Boolean(), Type.Null()])),
    stream_options: Type.Optional(Type.Union([StreamOptions, Type.Null()])),
    svc: Type.Optional(SvcExtension),
  },
  { additionalProperties: true, $id: 'CompletionRequest' },
);
export type CompletionRequest = Type.Static<typeof CompletionRequest> & Record<string, unknown>;

export const EmbeddingRequest = Type.Object(
  {
    model: Type.String({ minLength: 1, maxLength: 200 }),
    input: Type.Union([Type.String(), Type.Array(Type.String(), { minItems: 1, maxItems: 2048 }), Type.Array(Type.Integer()), Type.Array(Type.Array(Type.Integer()))]),
    encoding_format: Type.Optional(Type.Union([Type.Literal('float'), Type.Literal('base64')])),
    dimensions: Type.Optional(Type.Integer({ minimum: 1 })),
    svc: Type.Optional(SvcExtension),
  },
  { additionalProperties: true, $id: 'EmbeddingRequest' },
);
export type EmbeddingRequest = Type.Static<typeof EmbeddingRequest> & Record<string, unknown>;

/**
 * Fields that do not change what the model answers, so they stay out of the
 * exact cache key: transport (`stream`, `stream_options`), bookkeeping
 * (`user`, `metadata`, `store`, `service_tier`), the output encoding of
 * embeddings (converted by the gateway), and the svc extension (its
 * output-affecting fields are added back explicitly).
 */
export const NON_OUTPUT_FIELDS = new Set(['stream', 'stream_options', 'user', 'metadata', 'store', 'service_tier', 'encoding_format', 'svc']);
