/**
 * OpenTelemetry spans with the spec's names (`svc.intake`, `svc.plan`, …).
 * Spans carry ids and hashes, never raw prompts, payloads or object keys:
 * `tenantHash` is what goes on spans instead of the tenant name.
 * Export: OTLP/HTTP when OTEL_EXPORTER_OTLP_ENDPOINT (or …_TRACES_ENDPOINT) is
 * set; otherwise spans are created (for local overhead accounting) but not exported.
 */
import { type Attributes, type Span, SpanStatusCode, type Tracer, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor, type SpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { sha256Hex } from '../../core/hashing.ts';

export const SPAN_NAMES = [
  'svc.intake', 'svc.classify', 'svc.policy.evaluate', 'svc.plan', 'svc.execute', 'svc.transform', 'svc.cache.lookup',
  'svc.ai.context_compile', 'svc.ai.route', 'svc.verify', 'svc.manifest.write', 'svc.ledger.append', 'svc.rehydrate',
] as const;
export type SpanName = (typeof SPAN_NAMES)[number];

export interface Tracing {
  tracer: Tracer;
  /** Whether any span processor consumes spans; hot paths may skip creating spans when none does. */
  exporting: boolean;
  shutdown(): Promise<void>;
}

export function createTracing(env: Record<string, string | undefined> = process.env, extraProcessors: SpanProcessor[] = []): Tracing {
  const processors = [...extraProcessors];
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) processors.push(new BatchSpanProcessor({ exporter: new OTLPTraceExporter() }));
  const provider = new TracerProvider({ spanProcessors: processors });
  return { tracer: provider.getTracer('svc'), exporting: processors.length > 0, shutdown: () => provider.shutdown() };
}

/** A short stable hash of a tenant name for span attributes. */
export function tenantHash(tenant: string): string {
  return sha256Hex(`tenant:${tenant}`).slice(0, 16);
}

/** Runs `fn` inside a span; records exceptions by error code only (messages may carry user text). */
export async function withSpan<T>(tracer: Tracer, name: SpanName, attributes: Attributes, fn: (span: Span) => Promise<T> | T): Promise<T> {
  return tracer.startActiveSpan(name, { attributes }, async (span) => {
    try {
      return await fn(span);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      span.setStatus({ code: SpanStatusCode.ERROR, message: typeof code === 'string' ? code : 'error' });
      throw err;
    } finally {
      span.end();
    }
  });
}

export { trace };
