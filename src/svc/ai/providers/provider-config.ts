/**
 * Provider configuration: OpenAI-compatible upstreams (OpenAI, vLLM,
 * Ollama, llama.cpp server, most hosted APIs) with their models. Keys are
 * never configured, only the NAME of the environment variable that holds
 * one (`api_key_env`), so config files, responses, logs and the ledger never
 * contain a key. The same shape is accepted whole from `SVC_PROVIDERS_JSON`
 * (docs/ai-gateway.md has an example).
 */
import Type from 'typebox';
import { Compile } from 'typebox/compile';
import { SvcError } from '../../errors.ts';

export const ProviderModel = Type.Object(
  {
    id: Type.String({ minLength: 1, maxLength: 200, description: 'model id as the upstream knows it; also what clients send' }),
    size_class: Type.Union([Type.Literal('small'), Type.Literal('large')]),
    /** Which APIs the model serves; default chat and completions. */
    capabilities: Type.Optional(Type.Array(Type.Union([Type.Literal('chat'), Type.Literal('completions'), Type.Literal('embeddings')]), { minItems: 1, uniqueItems: true })),
    /** Prices per 1000 tokens, for cost estimates only (labelled as estimates). */
    price: Type.Optional(
      Type.Object(
        { input_per_1k: Type.Number({ minimum: 0 }), output_per_1k: Type.Number({ minimum: 0 }), currency: Type.Optional(Type.String({ minLength: 3, maxLength: 3 })) },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ProviderModel = Type.Static<typeof ProviderModel>;

export const ProviderTimeouts = Type.Object(
  {
    connect_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 600_000 })),
    /** Whole request (non-streaming) or time to the first byte (streaming). */
    request_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 3_600_000 })),
    /** Longest silence between two stream events. */
    stream_idle_ms: Type.Optional(Type.Integer({ minimum: 1, maximum: 3_600_000 })),
  },
  { additionalProperties: false },
);

export const ProviderConfig = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z0-9][a-z0-9._-]*$' }),
    base_url: Type.String({ pattern: '^https?://', description: 'OpenAI-compatible base URL including /v1, e.g. https://api.openai.com/v1' }),
    api_key_env: Type.Optional(Type.String({ pattern: '^[A-Z_][A-Z0-9_]*$', description: 'NAME of the env var holding the key; omit for keyless local servers' })),
    models: Type.Array(ProviderModel, { minItems: 1 }),
    timeouts: Type.Optional(ProviderTimeouts),
    /** Model used when a response fails its required verifier and the request names no `svc.fallback_model`. */
    fallback_model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    /** Model of this provider that serves embeddings for the semantic cache (instead of the built-in lexical embedding). */
    semantic_cache_embedding_model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    /** Cosine similarity from which the semantic cache accepts this model's vectors (default 0.92; calibrate per domain). */
    semantic_cache_threshold: Type.Optional(Type.Number({ minimum: 0.5, maximum: 1 })),
    /** Upper bound of pooled keep-alive connections to this provider. */
    max_connections: Type.Optional(Type.Integer({ minimum: 1, maximum: 4096 })),
  },
  { additionalProperties: false },
);
export type ProviderConfig = Type.Static<typeof ProviderConfig>;

/** The `ai.providers` section of the config file, and the value of `SVC_PROVIDERS_JSON`. */
export const ProvidersSection = Type.Array(ProviderConfig, { $id: 'ProvidersSection' });
export type ProvidersSection = Type.Static<typeof ProvidersSection>;

const checkProviders = Compile(ProvidersSection);

export const DEFAULT_TIMEOUTS = { connect_ms: 5_000, request_ms: 120_000, stream_idle_ms: 60_000 } as const;

/**
 * Validates a providers section and checks what the schema cannot: unique
 * provider names, unique model ids across providers (a client's model name
 * must pick one route), and fallback models that exist.
 */
export function parseProvidersSection(value: unknown, source: string): ProvidersSection {
  if (!checkProviders.Check(value)) {
    const first = [...checkProviders.Errors(value)][0];
    throw new SvcError('invalid_request', `${source}: ${first ? `${first.instancePath || '/'} ${first.message}` : 'invalid providers section'}`);
  }
  const providers = value as ProvidersSection;
  const names = new Set<string>();
  const models = new Set<string>();
  for (const p of providers) {
    if (names.has(p.name)) throw new SvcError('invalid_request', `${source}: provider name '${p.name}' is used twice`);
    names.add(p.name);
    for (const m of p.models) {
      if (m.id === 'auto') throw new SvcError('invalid_request', `${source}: 'auto' is reserved for the router and cannot be a model id`);
      if (models.has(m.id)) throw new SvcError('invalid_request', `${source}: model '${m.id}' is configured twice`);
      models.add(m.id);
    }
  }
  for (const p of providers) {
    if (p.fallback_model !== undefined && !models.has(p.fallback_model)) {
      throw new SvcError('invalid_request', `${source}: provider '${p.name}' names an unknown fallback_model '${p.fallback_model}'`);
    }
  }
  return providers;
}

/** Reads `SVC_PROVIDERS_JSON` from the given environment; undefined when unset. */
export function providersFromEnv(env: NodeJS.ProcessEnv = process.env): ProvidersSection | undefined {
  const raw = env.SVC_PROVIDERS_JSON;
  if (raw === undefined || raw.trim() === '') return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new SvcError('invalid_request', 'SVC_PROVIDERS_JSON is not valid JSON');
  }
  return parseProvidersSection(parsed, 'SVC_PROVIDERS_JSON');
}
