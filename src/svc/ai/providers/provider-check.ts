/**
 * `svc gateway ai --provider <name>`: checks one configured provider the
 * way the gateway will use it — reachability and the upstream model list
 * (`GET /models`), then the smallest chat call through the same client,
 * verified by `chat_completion@1` — and reports the routing table
 * (`auto` → small/large class, fallbacks). Never prints the key.
 */
import { runVerifier } from '../../cache/verifiers/run-verifier.ts';
import { SvcError } from '../../errors.ts';
import { ModelCatalog, serves } from './model-catalog.ts';
import { OpenAICompatibleClient } from './openai-compatible-client.ts';
import type { ProvidersSection } from './provider-config.ts';

export interface ProviderCheckReport {
  provider: string;
  base_url: string;
  api_key_env: string | null;
  api_key_present: boolean;
  reachable: boolean;
  reachability_detail: string;
  upstream_models: string[] | null;
  configured_models: Array<{ id: string; size_class: string; capabilities: string[]; listed_by_upstream: boolean | null }>;
  verified_call: { model: string | null; passed: boolean; verifier: string; latency_ms: number | null; detail: string };
  routing_table: { auto_small: string | null; auto_large: string | null; fallback_model: string | null; embeddings: string | null };
  ok: boolean;
}

export async function checkProvider(providers: ProvidersSection, name: string, env: NodeJS.ProcessEnv): Promise<ProviderCheckReport> {
  const provider = providers.find((p) => p.name === name);
  if (!provider) throw new SvcError('not_found', `no provider named '${name}' is configured (configured: ${providers.map((p) => p.name).join(', ') || 'none'})`);
  const catalog = new ModelCatalog(providers);
  const client = new OpenAICompatibleClient(provider, env);
  try {
    let upstreamModels: string[] | null = null;
    let reachable = false;
    let reachabilityDetail = '';
    try {
      const list = (await client.getJson('/models')) as { data?: Array<{ id?: unknown }> };
      upstreamModels = (list.data ?? []).map((m) => String(m.id));
      reachable = true;
      reachabilityDetail = `GET /models listed ${upstreamModels.length} models`;
    } catch (err) {
      const e = SvcError.from(err);
      // Some OpenAI-compatible servers do not implement /models; the chat call below still proves reachability.
      reachabilityDetail = `GET /models failed: ${e.code} (${e.message})`;
    }
    const chatModel = provider.models.find((m) => serves(m, 'chat'));
    let verified: ProviderCheckReport['verified_call'] = { model: null, passed: false, verifier: 'chat_completion@1', latency_ms: null, detail: 'no chat model configured' };
    if (chatModel) {
      const t0 = performance.now();
      try {
        const answer = await client.postJson('/chat/completions', { model: chatModel.id, messages: [{ role: 'user', content: 'Reply with the single word OK.' }], max_tokens: 5, temperature: 0 });
        const outcome = runVerifier({ type: 'chat_completion' }, answer);
        reachable = true;
        verified = { model: chatModel.id, passed: outcome.passed, verifier: outcome.verifier, latency_ms: Math.round(performance.now() - t0), detail: outcome.passed ? 'answer verified' : `verifier failed: ${outcome.reason}` };
      } catch (err) {
        const e = SvcError.from(err);
        verified = { model: chatModel.id, passed: false, verifier: 'chat_completion@1', latency_ms: Math.round(performance.now() - t0), detail: `${e.code}: ${e.message}` };
      }
    }
    const own = (id: string | undefined) => (id && provider.models.some((m) => m.id === id) ? id : null);
    return {
      provider: provider.name,
      base_url: provider.base_url,
      api_key_env: provider.api_key_env ?? null,
      api_key_present: provider.api_key_env === undefined ? true : Boolean(env[provider.api_key_env]),
      reachable,
      reachability_detail: reachabilityDetail,
      upstream_models: upstreamModels,
      configured_models: provider.models.map((m) => ({ id: m.id, size_class: m.size_class, capabilities: m.capabilities ?? ['chat', 'completions'], listed_by_upstream: upstreamModels ? upstreamModels.includes(m.id) : null })),
      verified_call: verified,
      routing_table: {
        auto_small: catalog.firstOfClass('small', 'chat')?.model.id ?? null,
        auto_large: catalog.firstOfClass('large', 'chat')?.model.id ?? null,
        fallback_model: provider.fallback_model ?? null,
        embeddings: own(provider.semantic_cache_embedding_model) ?? catalog.withCapability('embeddings')[0]?.model.id ?? null,
      },
      ok: reachable && verified.passed,
    };
  } finally {
    await client.close();
  }
}
