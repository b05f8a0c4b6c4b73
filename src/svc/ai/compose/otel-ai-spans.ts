/**
 * `AiSpans` over the service's OpenTelemetry tracer (spec: Traces). When no
 * span processor is configured (no OTLP endpoint) nothing would ever read
 * a span, so none is created: at 4–5 spans per request that was ~60 µs of
 * the gateway's own time (bench/results/gateway-overhead.md).
 */
import type { Tracer } from '@opentelemetry/api';
import { type SpanName, withSpan } from '../../observability/tracing.ts';
import { type AiSpans, noSpans } from '../gateway/ports.ts';

export function otelAiSpans(tracer: Tracer, exporting = true): AiSpans {
  if (!exporting) return noSpans;
  return { run: (name, attributes, fn) => withSpan(tracer, name as SpanName, attributes, () => fn()) };
}
