/**
 * Builds the AI gateway and the caches for the composed service. Providers
 * come from the config file's `providers` section, or whole from
 * `SVC_PROVIDERS_JSON` (the environment wins, so containers need no file).
 * With no provider the gateway still starts; AI routes answer
 * `model_route_failed` saying how to configure one.
 */
import { Counter } from 'prom-client';
import type { CacheLedgerSink } from '../../cache/cache-context.ts';
import { ExactCache } from '../../cache/exact/exact-cache.ts';
import { ProviderEmbedder } from '../../cache/semantic/provider-embedder.ts';
import { SemanticCache } from '../../cache/semantic/semantic-cache.ts';
import type { LedgerAppender } from '../../ledger/appender.ts';
import type { SvcMetrics } from '../../observability/metrics.ts';
import type { CacheLookupObserver } from '../../cache/cache-context.ts';
import type { Tracing } from '../../observability/tracing.ts';
import type { PolicyEvaluator } from '../../policy/types.ts';
import type { Store } from '../../store/store.ts';
import type { Switchboard } from '../../rollout/switchboard.ts';
import type { Switches } from '../../rollout/switches.ts';
import { AiGateway } from '../gateway/ai-gateway.ts';
import type { AiRollout } from '../gateway/ports.ts';
import type { RoutingSwitches } from '../routing/route-selector.ts';
import { GroupCommittedExactCacheStore, GroupCommittedSemanticCacheStore } from './group-committed-cache-stores.ts';
import { ModelCatalog } from '../providers/model-catalog.ts';
import { parseProvidersSection, providersFromEnv } from '../providers/provider-config.ts';
import { UpstreamPool } from '../providers/upstream-pool.ts';
import { otelAiSpans } from './otel-ai-spans.ts';
import { prometheusAiTelemetry } from './prometheus-ai-telemetry.ts';
import { SvcAiRecorder } from './svc-ai-recorder.ts';

export interface AiServices {
  gateway: AiGateway;
  catalog: ModelCatalog;
  exactCache: ExactCache;
  semanticCache: SemanticCache;
  /** Closes upstream connections. */
  close(): Promise<void>;
}

export interface AiServiceDeps {
  providersConfig: unknown[];
  env: Record<string, string | undefined>;
  store: Store;
  ledger: LedgerAppender;
  metrics: SvcMetrics;
  tracing: Tracing;
  /** Called per request: the policy engine can be swapped at runtime. */
  policy: () => PolicyEvaluator;
  /**
   * The rollback switchboard: its routing switches are read per request,
   * and the semantic cache registers as what `clear_semantic_cache` clears.
   */
  switchboard?: Switchboard;
  /**
   * The rollout decision (canary stage, switches, SLO guardrail), asked
   * once per AI request — `app.rollout`. Without it nothing is restricted.
   */
  rollout?: AiRollout;
}

export function createAiServices(d: AiServiceDeps): AiServices {
  const providers = providersFromEnv(d.env as NodeJS.ProcessEnv) ?? parseProvidersSection(d.providersConfig, 'config providers');
  const catalog = new ModelCatalog(providers);
  const upstreams = new UpstreamPool(catalog, d.env as NodeJS.ProcessEnv);
  const ledger: CacheLedgerSink = d.ledger;
  // A failed cache write does not fail the request (the answer is served, records are committed), but is never silent.
  const cacheWriteFailures = new Counter({ name: 'svc_ai_cache_write_failures_total', help: 'Verified AI answers that could not be stored in the exact or semantic cache.', registers: [d.metrics.registry] });
  // Cache writes join the ledger's group commit: one transaction with the request's records.
  const onLookup = directLookupMetrics(d.metrics);
  const exactCache = new ExactCache({ store: new GroupCommittedExactCacheStore(d.store.cacheEntries, d.ledger), ledger, onCrossTenantHit: () => d.metrics.cacheCrossTenantHits.inc(), onLookup });
  // Embeddings mode: the first provider naming a semantic_cache_embedding_model serves the cache's vectors.
  const embedding = providers.find((p) => p.semantic_cache_embedding_model !== undefined);
  const embedder = embedding
    ? new ProviderEmbedder({
        provider: embedding.name,
        model: embedding.semantic_cache_embedding_model!,
        client: upstreams.client(embedding.name),
        ...(embedding.semantic_cache_threshold !== undefined ? { threshold: embedding.semantic_cache_threshold } : {}),
      })
    : undefined;
  const semanticCache = new SemanticCache({
    store: new GroupCommittedSemanticCacheStore(d.store.semanticCache, d.ledger),
    ledger,
    onCrossTenantHit: (n) => d.metrics.cacheCrossTenantHits.inc(n),
    onLookup,
    ...(embedder ? { embedder } : {}),
  });
  const policy: PolicyEvaluator = { evaluate: (input) => d.policy().evaluate(input), activeBundle: () => d.policy().activeBundle() };
  const switchboard = d.switchboard;
  switchboard?.registerSemanticCacheClearer((tenant) => semanticCache.clearForRollback(tenant));
  const gateway = new AiGateway({
    catalog,
    upstreams,
    policy,
    exactCache,
    semanticCache,
    recorder: new SvcAiRecorder(d.ledger, (s) => d.metrics.manifestWriteSeconds.observe(s), d.store.aiRecords),
    ledger,
    telemetry: prometheusAiTelemetry(d.metrics),
    spans: otelAiSpans(d.tracing.exporting),
    onCacheWriteError: () => cacheWriteFailures.inc(),
    ...(switchboard ? { routingSwitches: () => routingSwitchesOf(switchboard.current()) } : {}),
    ...(d.rollout ? { rollout: d.rollout } : {}),
  });
  return {
    gateway,
    catalog,
    exactCache,
    semanticCache,
    close: () => upstreams.close(),
  };
}

function routingSwitchesOf(s: Readonly<Switches>): RoutingSwitches {
  return { modelRouterDisabled: s.model_router_disabled, baselineProviderOnly: s.route_to_baseline_provider };
}

/** Direct cache lookups (the `/v1/cache/*` routes) in the same counters as the gateway's own lookups. */
function directLookupMetrics(metrics: SvcMetrics): CacheLookupObserver {
  return (cache, result) => {
    if (result === 'hit') metrics.cacheHits.inc({ cache });
    else metrics.cacheMisses.inc({ cache });
    if (result === 'stale') metrics.semanticCacheStale.inc();
  };
}
