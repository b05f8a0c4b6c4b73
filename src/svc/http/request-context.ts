/**
 * Per-request state set by the server's hooks: the trace id (always) and the
 * authenticated principal (on protected routes). `ctx(request)` hands the
 * domain layer its `RequestContext`.
 */
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.ts';
import type { RequestContext, RequestFacts } from '../context.ts';
import type { RequestTrace } from '../observability/tracing.ts';
import { SvcError } from '../errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    traceId: string;
    /** The request's trace (root span `svc.intake`); set by the first onRequest hook. */
    requestTrace: RequestTrace;
    principal: Principal | undefined;
    /** What the domain learnt while serving the request (tenant), for its log line. */
    facts: RequestFacts;
    /** The error code the request was answered with, for its log line. */
    errorCode: string | undefined;
  }
}

export function ctx(request: FastifyRequest): RequestContext {
  if (!request.principal) throw new SvcError('unauthenticated', 'this route requires a credential');
  const approval = request.headers['x-svc-approval'];
  return { principal: request.principal, traceId: request.traceId, approvalToken: typeof approval === 'string' ? approval : undefined, facts: request.facts };
}
