/**
 * The optional `svc` object of chat, completion and embedding requests
 * (spec: AI request extension). The six spec fields come first; the rest
 * are this project's additions, each documented in docs/ai-gateway.md. The
 * object is closed: a typo is an error, not a silently ignored option.
 */
import Type from 'typebox';
import { VerificationSpec } from '../../cache/verifiers/verification-spec.ts';

export const STREAM_MODES = ['direct', 'buffered', 'speculative', 'non_streaming'] as const;
export type StreamMode = (typeof STREAM_MODES)[number];

export const SvcExtension = Type.Object(
  {
    contract: Type.Optional(Type.Union([Type.Literal('exact_bytes'), Type.Literal('semantic')])),
    mode: Type.Optional(Type.Union([Type.Literal('observe'), Type.Literal('enforce')])),
    max_context_tokens: Type.Optional(Type.Integer({ minimum: 1, maximum: 10_000_000 })),
    allow_semantic_cache: Type.Optional(Type.Boolean()),
    require_citations: Type.Optional(Type.Boolean()),
    fallback_model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    // Additions.
    tenant: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    namespace: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    risk: Type.Optional(Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')])),
    stream_mode: Type.Optional(Type.Union([Type.Literal('direct'), Type.Literal('buffered'), Type.Literal('speculative'), Type.Literal('non_streaming')])),
    /** A required verifier for the answer, run in addition to the route's default one. */
    verification: Type.Optional(VerificationSpec),
    cache_domain: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })),
    source_fingerprints: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 1024 })),
    max_cache_age_seconds: Type.Optional(Type.Integer({ minimum: 0, maximum: 30 * 24 * 3600 })),
    /** `bypass` skips cache lookups and stores for this request (the gateway still records it). */
    cache: Type.Optional(Type.Union([Type.Literal('default'), Type.Literal('bypass')])),
  },
  { additionalProperties: false, $id: 'SvcExtension' },
);
export type SvcExtension = Type.Static<typeof SvcExtension>;
