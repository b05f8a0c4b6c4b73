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
import { SemanticCache } from '../../cache/semantic/semantic-cache.ts';
import type { LedgerAppender } from '../../ledger/appender.ts';
import type { SvcMetrics } from '../../observability/metrics.ts';
import type { Tracing } from '../../observability/tracing.ts';
import type { PolicyEvaluator } from '../../policy/types.ts';
import type { Store } from '../../store/store.ts';
import { AiGateway } from '../gateway/ai-gateway.ts';
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
  /** Drains write-behind writes, then closes upstream connections. */
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
}

export function createAiServices(d: AiServiceDeps): AiServices {
  const providers = providersFromEnv(d.env as NodeJS.ProcessEnv) ?? parseProvidersSection(d.providersConfig, 'config providers');
  const catalog = new ModelCatalog(providers);
  const upstreams = new UpstreamPool(catalog, d.env as NodeJS.ProcessEnv);
  const ledger: CacheLedgerSink = d.ledger;
  // A failed write-behind write (manifest, ledger, cache) is an alertable condition, never silent.
  const recordingFailures = new Counter({ name: 'svc_ai_recording_failures_total', help: 'AI work-unit, manifest, ledger or cache writes that failed after the response was sent.', registers: [d.metrics.registry] });
  const exactCache = new ExactCache({ store: d.store.cacheEntries, ledger });
  const semanticCache = new SemanticCache({ store: d.store.semanticCache, ledger });
  const policy: PolicyEvaluator = { evaluate: (input) => d.policy().evaluate(input), activeBundle: () => d.policy().activeBundle() };
  const gateway = new AiGateway({
    catalog,
    upstreams,
    policy,
    exactCache,
    semanticCache,
    recorder: new SvcAiRecorder(d.store, d.ledger, (s) => d.metrics.manifestWriteSeconds.observe(s)),
    ledger,
    telemetry: prometheusAiTelemetry(d.metrics),
    spans: otelAiSpans(d.tracing.tracer),
    recording: 'write_behind',
    onBackgroundError: () => recordingFailures.inc(),
  });
  return {
    gateway,
    catalog,
    exactCache,
    semanticCache,
    close: async () => {
      await gateway.settled();
      upstreams.close();
    },
  };
}
