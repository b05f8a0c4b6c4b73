/** `AiTelemetry` over the service's prom-client registry (spec metric names; a few AI-specific additions). */
import { Counter, Histogram } from 'prom-client';
import { MetricChildren } from '../../observability/metric-children.ts';
import type { SvcMetrics } from '../../observability/metrics.ts';
import type { AiCounter, AiTelemetry } from '../gateway/ports.ts';

export function prometheusAiTelemetry(metrics: SvcMetrics): AiTelemetry {
  const extra = (name: string, help: string, labelNames: string[] = []) => new Counter({ name, help, labelNames, registers: [metrics.registry] });
  const counters: Record<AiCounter, Counter<string>> = {
    svc_work_units_total: metrics.workUnits,
    svc_cache_hits_total: metrics.cacheHits,
    svc_cache_misses_total: metrics.cacheMisses,
    svc_ai_input_tokens_total: metrics.aiInputTokens,
    svc_ai_context_tokens_removed_total: metrics.aiContextTokensRemoved,
    svc_ai_large_model_calls_total: metrics.aiLargeModelCalls,
    svc_ai_large_model_calls_avoided_total: metrics.aiLargeModelCallsAvoided,
    svc_ai_fallbacks_total: metrics.aiFallbacks,
    svc_verifier_failures_total: metrics.verifierFailures,
    svc_verifier_failures_without_fallback_total: metrics.verifierFailuresWithoutFallback,
    svc_ai_tokens_avoided_total: extra('svc_ai_tokens_avoided_total', 'Provider tokens not processed thanks to cache hits.'),
    svc_ai_model_calls_avoided_total: extra('svc_ai_model_calls_avoided_total', 'Provider calls avoided by cache hits.'),
    svc_ai_semantic_cache_stale_total: metrics.semanticCacheStale,
  };
  const overhead = new Histogram({
    name: 'svc_ai_gateway_overhead_seconds',
    help: 'Gateway processing time per AI request, excluding the upstream call.',
    labelNames: ['kind', 'cache'],
    buckets: [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1],
    registers: [metrics.registry],
  });
  // The gateway's labels are enum words (kind, cache, verifier, fallback reason): one child per series, made once.
  const labelled = new Map<AiCounter, Map<string, MetricChildren<Counter.Internal>>>();
  const children = (metric: AiCounter, labelName: string) => {
    // Two map lookups on strings that are already hashed, no key string built per call.
    let byLabel = labelled.get(metric);
    if (!byLabel) labelled.set(metric, (byLabel = new Map()));
    let c = byLabel.get(labelName);
    if (!c) {
      const counter = counters[metric];
      c = new MetricChildren((v) => counter.labels({ [labelName]: v[0]! }));
      byLabel.set(labelName, c);
    }
    return c;
  };
  const overheads = new MetricChildren((v) => overhead.labels(v[0]!, v[1]!));
  return {
    count(metric, value = 1, labels) {
      if (value <= 0) return;
      if (!labels) {
        counters[metric].inc(value);
        return;
      }
      const names = Object.keys(labels);
      if (names.length === 1) children(metric, names[0]!).get(labels[names[0]!]!).inc(value);
      else counters[metric].inc(labels, value);
    },
    observeOverhead(seconds, labels) {
      if (labels.kind !== undefined && labels.cache !== undefined && Object.keys(labels).length === 2) overheads.get(labels.kind, labels.cache).observe(seconds);
      else overhead.observe(labels, seconds);
    },
  };
}
