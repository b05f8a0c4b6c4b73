/**
 * `AiSpans` over the service's OpenTelemetry tracing (spec: Traces): each
 * span is a child of the request's open span (observability/tracing.ts).
 * When no span processor is configured (no OTLP endpoint) nothing would ever
 * read a span, so none is created: at 4–5 spans per request that was ~60 µs
 * of the gateway's own time (bench/results/gateway-overhead.md).
 */
import { type SpanName, inSpan } from '../../observability/tracing.ts';
import type { Span } from '@opentelemetry/api';
import { type AiSpans, type SpanAttributes, noSpans } from '../gateway/ports.ts';

export function otelAiSpans(exporting = true): AiSpans {
  if (!exporting) return noSpans;
  return {
    run: (name, attributes, fn, result) =>
      inSpan(name as SpanName, attributes, async (span) => {
        const value = await fn();
        if (result) setDefined(span, result(value));
        return value;
      }),
    runSync: (name, attributes, fn, result) =>
      inSpan(name as SpanName, attributes, (span) => {
        const value = fn();
        if (result) setDefined(span, result(value));
        return value;
      }),
  };
}

function setDefined(span: Span | undefined, attributes: SpanAttributes): void {
  for (const [k, v] of Object.entries(attributes)) if (v !== undefined) span?.setAttribute(k, v);
}
