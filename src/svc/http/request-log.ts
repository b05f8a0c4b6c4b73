/**
 * One operational log line per answered `/v1` request (and per refused
 * credential), written when the response is sent. It carries what an
 * operator filters on — tenant, work unit, manifest, policy bundle, trace,
 * error code — taken from what the request was answered with (the `X-SVC-*`
 * headers the route set, the error code) and from what the domain resolved
 * (the tenant). The message says what happened in words built only from the
 * method, route template, status and code: no user text, ids or payloads
 * (docs/observability.md).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { LogFields, OpLog } from '../logs/oplog.ts';

function header(reply: FastifyReply, name: string): string | undefined {
  const v = reply.getHeader(name);
  return typeof v === 'string' && v !== '' ? v : undefined;
}

/** The level of a request's line: server faults are errors, refused credentials warnings, the rest info. */
export function requestLogLevel(status: number): 'info' | 'warn' | 'error' {
  return status >= 500 ? 'error' : status === 401 ? 'warn' : 'info';
}

/** Fields and message of a request's log line. */
export function requestLogLine(request: FastifyRequest, reply: FastifyReply): { level: 'info' | 'warn' | 'error'; fields: LogFields; message: string } {
  const route = request.routeOptions.url ?? 'unmatched route';
  const status = reply.statusCode;
  const code = request.errorCode;
  const fields: LogFields = {
    event_type: status === 401 ? 'auth.rejected' : 'http.request',
    tenant: request.facts?.tenant ?? request.principal?.tenant,
    work_unit_id: header(reply, 'x-svc-work-unit-id'),
    manifest_id: header(reply, 'x-svc-manifest-id'),
    policy_bundle_id: header(reply, 'x-svc-policy-bundle'),
    trace_id: request.traceId,
    error_code: code,
    actor: request.principal?.actor,
    method: request.method,
    route,
    status,
    cache: header(reply, 'x-svc-cache'),
    duration_ms: Math.round(reply.elapsedTime * 1000) / 1000,
  };
  const what = `${request.method} ${route}`;
  if (status >= 500) return { level: 'error', fields, message: `${what} failed: ${code ?? 'internal'} (${status})` };
  if (status === 401) return { level: 'warn', fields, message: `${what} refused: no valid credential (401)` };
  if (status >= 400) return { level: 'info', fields, message: `${what} rejected: ${code ?? 'error'} (${status})` };
  return { level: 'info', fields, message: `${what} answered ${status}` };
}

/** Whether a request gets a line: the API and /metrics, not health probes, docs or the dashboard's static files. */
export function isLoggedRequest(url: string): boolean {
  return url.startsWith('/v1/') || url === '/v1' || url.startsWith('/metrics');
}

export function logRequest(log: OpLog, request: FastifyRequest, reply: FastifyReply): void {
  if (!isLoggedRequest(request.url)) return;
  // At a level that writes nothing, the line is not even built (one per request on the hot path).
  if (!log.enabled(requestLogLevel(reply.statusCode))) return;
  const line = requestLogLine(request, reply);
  log[line.level](line.fields, line.message);
}
