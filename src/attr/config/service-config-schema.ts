/**
 * The attr service configuration (`attr-service-config/v1`), defined once with
 * TypeBox: the same object validates config files, types the loaded config and
 * is published as JSON Schema (src/attr/config/schemas/). Unknown keys are
 * rejected everywhere so a misspelt limit cannot silently fall back to a default.
 *
 * Provider API keys are never part of this document: a provider entry names the
 * environment variable that holds its key (`api_key_env`).
 */
import Type from 'typebox';
import type { Static } from 'typebox';

export const SERVICE_CONFIG_SCHEMA_ID = 'attr-service-config/v1';

/** Default size limits, in bytes of UTF-8 (documented in docs/attr-service.md). */
export const DEFAULT_LIMITS = {
  max_request_bytes: 131_072,
  max_prompt_bytes: 8_192,
  max_output_bytes: 65_536,
  max_messages: 32,
} as const;

/** Default per-client sliding window: 120 protected requests per 60 s. */
export const DEFAULT_RATE_LIMIT = { window_ms: 60_000, max_requests: 120 } as const;

/** Default provider call bounds. */
export const DEFAULT_PROVIDER_BOUNDS = {
  timeout_ms: 30_000,
  max_output_bytes: 65_536,
  max_response_bytes: 1_048_576,
} as const;

const NonEmpty = Type.String({ minLength: 1 });

/** An environment variable name, never a key: upper-case letters, digits and `_`. */
const EnvVarName = Type.String({ pattern: '^[A-Z_][A-Z0-9_]{0,127}$' });

export const ProviderRouteSchema = Type.Object(
  {
    provider_id: Type.String({ pattern: '^[a-z0-9][a-z0-9._-]{0,63}$', description: 'Identifier clients send as `provider_id`.' }),
    base_url: Type.String({ pattern: '^https?://[^\\s]+$', description: 'OpenAI-compatible base URL; `/chat/completions` is appended.' }),
    model: NonEmpty,
    api_key_env: EnvVarName,
    timeout_ms: Type.Optional(Type.Integer({ minimum: 100, maximum: 300_000 })),
    max_output_bytes: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_048_576 })),
    max_response_bytes: Type.Optional(Type.Integer({ minimum: 1_024, maximum: 16_777_216 })),
  },
  { additionalProperties: false },
);

export const ServiceConfigSchema = Type.Object(
  {
    schema: Type.Literal(SERVICE_CONFIG_SCHEMA_ID),
    corpus_path: NonEmpty,
    audit_log_path: NonEmpty,
    artifact_dir: NonEmpty,
    trust_store_path: Type.Optional(NonEmpty),
    footer_signing: Type.Optional(
      Type.Object(
        {
          key_id: Type.String({ minLength: 1, maxLength: 256, description: 'Key id of the signing key in the trust store (allowed `receipt_public_key`).' }),
          private_key_path: Type.String({ minLength: 1, description: 'PKCS#8 PEM Ed25519 private key; must not be readable by group or others.' }),
        },
        { additionalProperties: false, description: 'Sign every source footer (Ed25519); requires `trust_store_path` (docs/decisions/136-signed-footers.md).' },
      ),
    ),
    service: Type.Object(
      {
        host: NonEmpty,
        port: Type.Integer({ minimum: 0, maximum: 65_535 }),
        operator: Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]{0,127}$', description: 'Operator boundary recorded in events and audit entries.' }),
        public_base_url: Type.Optional(Type.String({ pattern: '^https?://[^\\s]+$' })),
      },
      { additionalProperties: false },
    ),
    audit: Type.Object(
      {
        fsync: Type.Union([Type.Literal('per_batch'), Type.Literal('none')], {
          description: '`per_batch`: each group commit is fdatasync-ed before any of its responses is released.',
        }),
      },
      { additionalProperties: false },
    ),
    engine: Type.Optional(
      Type.Object(
        {
          workers: Type.Optional(
            Type.Integer({
              minimum: 0,
              maximum: 256,
              description: 'Worker threads that run the attribution engine; absent: the available parallelism (os.availableParallelism()); 0: in the service thread.',
            }),
          ),
        },
        { additionalProperties: false, description: 'How the attribution engine runs (docs/decisions/140-attr-engine-worker-pool.md).' },
      ),
    ),
    limits: Type.Object(
      {
        max_request_bytes: Type.Integer({ minimum: 1_024, maximum: 16_777_216 }),
        max_prompt_bytes: Type.Integer({ minimum: 1, maximum: 1_048_576 }),
        max_output_bytes: Type.Integer({ minimum: 1, maximum: 4_194_304 }),
        max_messages: Type.Integer({ minimum: 1, maximum: 1_024 }),
      },
      { additionalProperties: false },
    ),
    rate_limit: Type.Object(
      {
        window_ms: Type.Integer({ minimum: 100, maximum: 3_600_000 }),
        max_requests: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
        trusted_proxies: Type.Optional(
          Type.Array(Type.String({ minLength: 2, maxLength: 64 }), {
            maxItems: 256,
            description: 'Reverse proxies (IP addresses or CIDR ranges) whose X-Forwarded-For is honoured for the client identity; absent: the header is ignored.',
          }),
        ),
      },
      { additionalProperties: false },
    ),
    providers: Type.Array(ProviderRouteSchema, { maxItems: 64 }),
  },
  { additionalProperties: false, $id: SERVICE_CONFIG_SCHEMA_ID },
);

export type ServiceConfigDocument = Static<typeof ServiceConfigSchema>;
export type ProviderRouteDocument = Static<typeof ProviderRouteSchema>;
