/**
 * Request schemas of the cache endpoints, defined once (they validate
 * requests, type the domain calls and are published in OpenAPI). Every
 * object is closed (`additionalProperties: false`): in particular a store
 * request carrying `verifier_passed` is rejected by the schema (spec: Errors,
 * rule 2); verification is something the server does, not something a
 * client claims.
 */
import Type from 'typebox';
import { VerificationSpec } from './verifiers/verification-spec.ts';
import { CACHE_KEY_PATTERN } from './exact/exact-cache-key.ts';

/** Upper bound of `ttl_seconds` (30 days): long-lived answers go stale silently otherwise. */
export const MAX_TTL_SECONDS = 30 * 24 * 3600;
export const DEFAULT_TTL_SECONDS = 24 * 3600;

const Tenant = Type.String({ minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9._:-]+$' });

export const CacheStoreRequest = Type.Object(
  {
    key: Type.String({ pattern: CACHE_KEY_PATTERN, description: '`ck_` + 64 hex characters' }),
    tenant: Type.Optional(Tenant),
    value: Type.Unknown({ description: 'the cached value (any JSON)' }),
    verification: VerificationSpec,
    ttl_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TTL_SECONDS })),
  },
  { additionalProperties: false, $id: 'CacheStoreRequest' },
);
export type CacheStoreRequest = Type.Static<typeof CacheStoreRequest>;

export const ExactLookupRequest = Type.Object(
  {
    key: Type.String({ pattern: CACHE_KEY_PATTERN }),
    tenant: Type.Optional(Tenant),
  },
  { additionalProperties: false, $id: 'ExactLookupRequest' },
);
export type ExactLookupRequest = Type.Static<typeof ExactLookupRequest>;

/** What identifies a semantic cache entry's context; lookups and stores name the same fields. */
const semanticScopeFields = {
  tenant: Type.Optional(Tenant),
  /** Partition inside the tenant, e.g. `support-faq` or `chat:gpt-4o-mini`. */
  domain: Type.String({ minLength: 1, maxLength: 256 }),
  query: Type.Optional(Type.String({ minLength: 1, maxLength: 32_768 })),
  embedding: Type.Optional(Type.Array(Type.Number(), { minItems: 1, maxItems: 65_536 })),
  /** Fingerprints (e.g. SHA-256 of document versions) the answer depends on; must match the entry's exactly. */
  source_fingerprints: Type.Array(Type.String({ minLength: 1, maxLength: 256 }), { maxItems: 1024 }),
  /** The policy (bundle) id the answer was produced under; entries of other policies do not match. */
  policy_id: Type.String({ minLength: 1, maxLength: 128 }),
};

export const SemanticLookupRequest = Type.Object(
  {
    ...semanticScopeFields,
    freshness: Type.Object(
      {
        /** Oldest acceptable entry age. */
        max_age_seconds: Type.Integer({ minimum: 0, maximum: MAX_TTL_SECONDS }),
      },
      { additionalProperties: false },
    ),
    /** Extra check the hit must pass besides the entry's own verifier. */
    verification: Type.Optional(VerificationSpec),
  },
  { additionalProperties: false, $id: 'SemanticLookupRequest' },
);
export type SemanticLookupRequest = Type.Static<typeof SemanticLookupRequest>;

export const SemanticCalibrateRequest = Type.Object(
  {
    tenant: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    domain: Type.String({ minLength: 1, maxLength: 256 }),
    /** Target false acceptance: the share of label-0 pairs the cache may serve (e.g. 0.001). */
    max_false_accept: Type.Number({ minimum: 0.0001, maximum: 0.2 }),
    /** The tenant's labelled pairs: label 1 = same question, 0 = different. Never stored or logged. */
    pairs: Type.Array(
      Type.Object(
        { text_a: Type.String({ minLength: 1, maxLength: 4096 }), text_b: Type.String({ minLength: 1, maxLength: 4096 }), label: Type.Union([Type.Literal(0), Type.Literal(1)]) },
        { additionalProperties: false },
      ),
      { minItems: 2, maxItems: 100_000 },
    ),
  },
  { additionalProperties: false, $id: 'SemanticCalibrateRequest' },
);
export type SemanticCalibrateRequest = Type.Static<typeof SemanticCalibrateRequest>;

export const SemanticStoreRequest = Type.Object(
  {
    ...semanticScopeFields,
    value: Type.Unknown(),
    verification: VerificationSpec,
    ttl_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_TTL_SECONDS })),
  },
  { additionalProperties: false, $id: 'SemanticStoreRequest' },
);
export type SemanticStoreRequest = Type.Static<typeof SemanticStoreRequest>;

/** `POST /v1/cache/semantic/clear` (and gRPC CacheService/SemanticClear): a tenant, optionally one domain. */
export const SemanticClearRequest = Type.Object(
  { tenant: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })), domain: Type.Optional(Type.String({ minLength: 1, maxLength: 256 })) },
  { additionalProperties: false },
);
