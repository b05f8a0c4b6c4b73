/** `AiSpans` over the service's OpenTelemetry tracer (spec: Traces). */
import type { Tracer } from '@opentelemetry/api';
import { type SpanName, withSpan } from '../../observability/tracing.ts';
import type { AiSpans } from '../gateway/ports.ts';

export function otelAiSpans(tracer: Tracer): AiSpans {
  return { run: (name, attributes, fn) => withSpan(tracer, name as SpanName, attributes, () => fn()) };
}
