/**
 * OpenTelemetry spans with the spec's names (`svc.intake`, `svc.plan`, …),
 * one trace per request.
 *
 * How spans find their parent: a request opens a `RequestTrace` (its root
 * span, `svc.intake`, parented under an incoming W3C `traceparent` when there
 * is one) and runs its handler inside it; `inSpan` anywhere below — in any
 * domain service, with no tracer passed around — opens a child of the
 * innermost open span, found through an AsyncLocalStorage of our own (no
 * global OpenTelemetry context manager, so several apps in one process stay
 * apart). Outside a request, or when no span processor is configured,
 * `inSpan` just runs its function: no span is created.
 *
 * Spans carry ids and hashes, never prompts, payloads, tenant names or object
 * keys: `tenantHash` is what goes on spans instead of the tenant name
 * (span-attributes.ts lists the names).
 *
 * Export: OTLP/HTTP when OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
 * OTEL_EXPORTER_OTLP_ENDPOINT is set (read from the app's env, not only
 * process.env). More consumers (a local overhead-span recorder, a test
 * collector) plug in as further `SpanProcessor`s.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { type Attributes, type Context, ROOT_CONTEXT, type Span, SpanStatusCode, type Tracer, TraceFlags, trace } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { BatchSpanProcessor, type SpanProcessor, TracerProvider } from '@opentelemetry/sdk-trace';
import { sha256Hex } from '../../core/hashing.ts';
import { newTraceId, parseTraceparent } from './trace-id.ts';

export const SPAN_NAMES = [
  'svc.intake', 'svc.classify', 'svc.policy.evaluate', 'svc.plan', 'svc.execute', 'svc.transform', 'svc.cache.lookup',
  'svc.ai.context_compile', 'svc.ai.route', 'svc.verify', 'svc.manifest.write', 'svc.ledger.append', 'svc.rehydrate',
] as const;
export type SpanName = (typeof SPAN_NAMES)[number];

/** The open span a child attaches to, and the tracer of the app that opened it. */
interface SpanScope {
  tracer: Tracer;
  context: Context;
  /** Attributes every span of the request carries once known (tenant_hash, adapter); shared by the request's scopes. */
  request: Attributes;
}

const scopes = new AsyncLocalStorage<SpanScope>();
/** Each request's root span, by its shared request-attribute object. */
const rootSpans = new WeakMap<Attributes, Span>();

/** One request's trace: its id (`X-SVC-Trace-ID`) and its root span. */
export interface RequestTrace {
  readonly traceId: string;
  /** `svc.intake`, or undefined when nothing consumes spans. */
  readonly span: Span | undefined;
  /** Runs `fn` (and everything it starts) with the root span as the parent of new spans. */
  enter<T>(fn: () => T): T;
  /** Ends the root span; `statusCode` ≥ 500 marks it as an error. */
  end(statusCode: number): void;
}

export interface Tracing {
  tracer: Tracer;
  /** Whether any span processor consumes spans; when none does, no span is created. */
  exporting: boolean;
  /** Opens the request's trace: the incoming `traceparent`'s trace id, else a new one. */
  beginRequest(traceparent: string | string[] | undefined): RequestTrace;
  /** Exports what is buffered (tests, shutdown). */
  flush(): Promise<void>;
  shutdown(): Promise<void>;
}

/** The OTLP/HTTP traces URL from the standard variables, if any is set. */
export function otlpTracesUrl(env: Record<string, string | undefined>): string | undefined {
  if (env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT) return `${env.OTEL_EXPORTER_OTLP_ENDPOINT.replace(/\/$/, '')}/v1/traces`;
  return undefined;
}

export function createTracing(env: Record<string, string | undefined> = process.env, extraProcessors: SpanProcessor[] = []): Tracing {
  const processors = [...extraProcessors];
  const url = otlpTracesUrl(env);
  if (url) processors.push(new BatchSpanProcessor({ exporter: new OTLPTraceExporter({ url }) }));
  const provider = new TracerProvider({ spanProcessors: processors });
  const tracer = provider.getTracer('svc');
  const exporting = processors.length > 0;
  return {
    tracer,
    exporting,
    beginRequest: (traceparent) => (exporting ? tracedRequest(tracer, traceparent) : untracedRequest(traceparent)),
    flush: () => provider.forceFlush(),
    shutdown: () => provider.shutdown(),
  };
}

function untracedRequest(traceparent: string | string[] | undefined): RequestTrace {
  const traceId = parseTraceparent(traceparent)?.traceId ?? newTraceId();
  return { traceId, span: undefined, enter: (fn) => fn(), end: () => {} };
}

function tracedRequest(tracer: Tracer, traceparent: string | string[] | undefined): RequestTrace {
  const incoming = parseTraceparent(traceparent);
  const parent = incoming
    ? trace.setSpanContext(ROOT_CONTEXT, { traceId: incoming.traceId, spanId: incoming.spanId, traceFlags: incoming.sampled ? TraceFlags.SAMPLED : TraceFlags.NONE, isRemote: true })
    : ROOT_CONTEXT;
  const span = tracer.startSpan('svc.intake', {}, parent);
  const scope: SpanScope = { tracer, context: trace.setSpan(parent, span), request: {} };
  rootSpans.set(scope.request, span);
  let ended = false;
  return {
    // The span's trace id is the incoming one when a traceparent came in, else the root span's new one.
    traceId: span.spanContext().traceId,
    span,
    enter: (fn) => scopes.run(scope, fn),
    end(statusCode) {
      if (ended) return;
      ended = true;
      span.setAttribute('http_status', statusCode);
      if (statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    },
  };
}

/**
 * Runs `fn` inside a child span of the innermost open span (see the file
 * comment); without one it just runs `fn`. Works for sync and async `fn`.
 * Errors are recorded by error code only (messages may carry user text).
 * Attributes with an undefined value are left out.
 */
/** True inside a traced request (spans are exported): callers skip computing span attributes otherwise. */
export function inTracedScope(): boolean {
  return scopes.getStore() !== undefined;
}

export function inSpan<T>(name: SpanName, attributes: Record<string, string | number | boolean | undefined | null>, fn: (span: Span | undefined) => T): T {
  const scope = scopes.getStore();
  if (!scope) return fn(undefined);
  const span = scope.tracer.startSpan(name, { attributes: { ...scope.request, ...defined(attributes) } }, scope.context);
  let result: T;
  try {
    result = scopes.run({ ...scope, context: trace.setSpan(scope.context, span) }, () => fn(span));
  } catch (err) {
    failed(span, err);
    span.end();
    throw err;
  }
  if (result instanceof Promise) {
    return result.then(
      (value) => {
        span.end();
        return value;
      },
      (err: unknown) => {
        failed(span, err);
        span.end();
        throw err;
      },
    ) as T;
  }
  span.end();
  return result;
}

/** Sets attributes on the innermost open span (e.g. a result known only at the end). */
export function annotateSpan(attributes: Record<string, string | number | boolean | undefined | null>): void {
  const scope = scopes.getStore();
  if (!scope) return;
  trace.getSpan(scope.context)?.setAttributes(defined(attributes));
}

/**
 * Attributes known for the whole request (the tenant hash once the principal
 * is known, the adapter that brought it): set on the request's root span and
 * on every span the request opens from now on.
 */
export function setRequestAttributes(attributes: Record<string, string | number | boolean | undefined | null>): void {
  const scope = scopes.getStore();
  if (!scope) return;
  const clean = defined(attributes);
  Object.assign(scope.request, clean);
  const root = rootSpans.get(scope.request);
  root?.setAttributes(clean);
}

/**
 * Opens a child span of the innermost open span that the caller ends itself
 * (work that finishes after the function returns, e.g. verification at the
 * end of a rehydration stream). Undefined outside a traced request.
 */
export function openSpan(name: SpanName, attributes: Record<string, string | number | boolean | undefined | null>): Span | undefined {
  const scope = scopes.getStore();
  if (!scope) return undefined;
  return scope.tracer.startSpan(name, { attributes: { ...scope.request, ...defined(attributes) } }, scope.context);
}

/**
 * The spec's `namespace` attribute, coarse on purpose: the scheme of a
 * logical reference (`s3://bucket/key` → `s3`), or the first segment of a
 * policy namespace (`bucket/key` → `bucket`). The rest (keys, paths) may be
 * sensitive and never goes on a span.
 */
export function namespaceOf(value: string | undefined | null): string | undefined {
  if (!value) return undefined;
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value);
  if (scheme) return scheme[1]!.toLowerCase();
  if (value.includes(':')) return undefined;
  return value.split('/', 1)[0] || undefined;
}

/** The trace id of the request being served, if any span is open. */
export function activeTraceId(): string | undefined {
  const scope = scopes.getStore();
  return scope ? trace.getSpan(scope.context)?.spanContext().traceId : undefined;
}

/** A short stable hash of a tenant name for span attributes. */
export function tenantHash(tenant: string): string {
  return sha256Hex(`tenant:${tenant}`).slice(0, 16);
}

function defined(attributes: Record<string, string | number | boolean | undefined | null>): Attributes {
  const out: Attributes = {};
  for (const [k, v] of Object.entries(attributes)) if (v !== undefined && v !== null) out[k] = v;
  return out;
}

function failed(span: Span, err: unknown): void {
  const code = (err as { code?: unknown } | null)?.code;
  span.setStatus({ code: SpanStatusCode.ERROR, message: typeof code === 'string' ? code : 'error' });
}

export { trace };
