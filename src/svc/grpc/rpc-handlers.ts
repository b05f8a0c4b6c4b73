/**
 * The per-call frame every gRPC method runs in — the gRPC counterpart of the
 * HTTP server's hooks and error handler: trace id sent as initial metadata,
 * credential checked, one domain call, errors mapped once (status-error.ts),
 * logged, counted, and fed to the SLO guardrail for hot-path methods.
 * Service files only translate messages and call the domain.
 */
import * as grpc from '@grpc/grpc-js';
import type { SvcApp } from '../app.ts';
import type { RequestContext } from '../context.ts';
import { SvcError } from '../errors.ts';
import { TRACE_ID_KEY, callContext, traceIdOf } from './call-context.ts';
import type { GrpcMetrics } from './grpc-metrics.ts';
import { toStatusError } from './status-error.ts';

export interface GrpcRuntime {
  readonly app: SvcApp;
  readonly metrics: GrpcMetrics;
  /** Aborted when the server starts closing; endless streams (ledger) end cleanly on it. */
  readonly closing: AbortSignal;
}

export interface RpcOptions {
  /** Feed the SLO guardrail (the optimisation hot path, as src/svc/rollout/guarded-routes.ts does for REST). */
  guarded?: boolean;
}

/** What a streaming method writes to. */
export interface MessageSink<Res> {
  /** Sends one message; resolves when the transport can take more (backpressure). Throws once the client has gone. */
  write(message: Res): Promise<void>;
  /** Aborted when the client cancels the call. */
  readonly signal: AbortSignal;
}

/** The client cancelled a stream: nothing more can be sent, and nothing is reported. */
class ClientCancelled extends Error {}

function statusName(code: number): string {
  return grpc.status[code] ?? String(code);
}

function initialMetadata(traceId: string): grpc.Metadata {
  const md = new grpc.Metadata();
  md.set(TRACE_ID_KEY, traceId);
  return md;
}

function authenticateCall(rt: GrpcRuntime, metadata: grpc.Metadata, traceId: string): RequestContext {
  try {
    return callContext(rt.app.credentials, metadata, traceId);
  } catch (err) {
    rt.app.metrics.authFailures.inc();
    rt.app.log.warn({ event_type: 'auth.rejected', trace_id: traceId, error_code: 'unauthenticated', transport: 'grpc' }, 'gRPC call refused: no valid credential');
    throw err;
  }
}

/** Records the outcome of one call: metrics, guardrail, and its log entry (method, code, trace; never the request). */
function settle(rt: GrpcRuntime, method: string, options: RpcOptions, started: number, traceId: string, err: SvcError | undefined): void {
  const elapsedMs = performance.now() - started;
  rt.metrics.requests.inc({ method, code: statusName(err ? err.grpcStatus : grpc.status.OK) });
  rt.metrics.seconds.observe({ method }, elapsedMs / 1000);
  if (options.guarded) rt.app.rollout.guardrail.record(elapsedMs, !err || err.httpStatus < 500);
  if (err?.code === 'unauthenticated') return; // logged by authenticateCall
  if (!err) {
    rt.app.log.info({ event_type: 'grpc.request', trace_id: traceId, method, duration_ms: Math.round(elapsedMs * 1000) / 1000 }, `${method} answered OK`);
    return;
  }
  const fields = { event_type: 'grpc.error', error_code: err.code, trace_id: traceId, work_unit_id: err.workUnitId, policy_bundle_id: err.policyBundleId, method };
  if (err.httpStatus >= 500) rt.app.log.error({ ...fields, cause: err.cause instanceof Error ? err.cause.message : undefined }, `${method} failed: ${err.code}`);
  else rt.app.log.info(fields, `${method} rejected: ${err.code}`);
}

/** A unary method: `handler` gets the request context and the decoded request, returns the response message. */
export function unary<Req, Res>(
  rt: GrpcRuntime,
  method: string,
  handler: (ctx: RequestContext, request: Req) => Promise<Res> | Res,
  options: RpcOptions = {},
): grpc.handleUnaryCall<Req, Res> {
  return (call, callback) => {
    const started = performance.now();
    const traceId = traceIdOf(call.metadata);
    call.sendMetadata(initialMetadata(traceId));
    void (async () => {
      let response: Res;
      try {
        response = await handler(authenticateCall(rt, call.metadata, traceId), call.request);
      } catch (thrown) {
        const err = SvcError.from(thrown);
        settle(rt, method, options, started, traceId, err);
        callback(toStatusError(err));
        return;
      }
      settle(rt, method, options, started, traceId, undefined);
      callback(null, response);
    })();
  };
}

/**
 * A server-streaming method: `handler` writes messages to the sink and
 * returns when the stream is complete; the call then ends with OK. A throw
 * before or after the first message ends the call with the error's status —
 * never with OK — so a client cannot mistake a broken stream for a whole one.
 */
export function serverStream<Req, Res>(
  rt: GrpcRuntime,
  method: string,
  handler: (ctx: RequestContext, request: Req, sink: MessageSink<Res>) => Promise<void>,
  options: RpcOptions = {},
): grpc.handleServerStreamingCall<Req, Res> {
  return (call) => {
    const started = performance.now();
    const traceId = traceIdOf(call.metadata);
    call.sendMetadata(initialMetadata(traceId));
    const cancelled = new AbortController();
    const onCancelled = () => cancelled.abort();
    call.on('cancelled', onCancelled);

    const waitForDrain = () =>
      new Promise<void>((resolve) => {
        const done = () => {
          call.off('drain', done);
          cancelled.signal.removeEventListener('abort', done);
          resolve();
        };
        call.on('drain', done);
        cancelled.signal.addEventListener('abort', done, { once: true });
      });

    const sink: MessageSink<Res> = {
      signal: cancelled.signal,
      async write(message) {
        if (cancelled.signal.aborted) throw new ClientCancelled();
        if (!call.write(message)) await waitForDrain();
        if (cancelled.signal.aborted) throw new ClientCancelled();
      },
    };

    void (async () => {
      try {
        await handler(authenticateCall(rt, call.metadata, traceId), call.request, sink);
        if (call.cancelled) throw new ClientCancelled();
        settle(rt, method, options, started, traceId, undefined);
        call.end();
      } catch (thrown) {
        if (thrown instanceof ClientCancelled || call.cancelled) {
          // The client left: there is no one to send a status to.
          rt.metrics.requests.inc({ method, code: statusName(grpc.status.CANCELLED) });
          return;
        }
        const err = SvcError.from(thrown);
        settle(rt, method, options, started, traceId, err);
        call.emit('error', toStatusError(err));
      } finally {
        call.off('cancelled', onCancelled);
      }
    })();
  };
}

/**
 * A client-streaming method (uploads): the credential is checked before any
 * message is read, `handler` consumes the request messages and returns the
 * one response. A client that cancels or half-closes early simply ends the
 * iteration; the domain decides whether what arrived is complete.
 */
export function clientStream<Req, Res>(
  rt: GrpcRuntime,
  method: string,
  handler: (ctx: RequestContext, messages: AsyncIterable<Req>) => Promise<Res>,
  options: RpcOptions = {},
): grpc.handleClientStreamingCall<Req, Res> {
  return (call, callback) => {
    const started = performance.now();
    const traceId = traceIdOf(call.metadata);
    call.sendMetadata(initialMetadata(traceId));
    void (async () => {
      let response: Res;
      try {
        response = await handler(authenticateCall(rt, call.metadata, traceId), call as AsyncIterable<Req>);
      } catch (thrown) {
        const err = SvcError.from(thrown);
        settle(rt, method, options, started, traceId, err);
        callback(toStatusError(err));
        // Nothing more is read from a refused upload.
        call.destroy();
        return;
      }
      settle(rt, method, options, started, traceId, undefined);
      callback(null, response);
    })();
  };
}
