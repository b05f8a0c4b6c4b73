/**
 * Per-request state set by the server's hooks: the trace id (always) and the
 * authenticated principal (on protected routes). `ctx(request)` hands the
 * domain layer its `RequestContext`.
 */
import type { FastifyRequest } from 'fastify';
import type { Principal } from '../auth/principal.ts';
import type { RequestContext } from '../context.ts';
import { SvcError } from '../errors.ts';

declare module 'fastify' {
  interface FastifyRequest {
    traceId: string;
    principal: Principal | undefined;
  }
}

export function ctx(request: FastifyRequest): RequestContext {
  if (!request.principal) throw new SvcError('unauthenticated', 'this route requires a credential');
  const approval = request.headers['x-svc-approval'];
  return { principal: request.principal, traceId: request.traceId, approvalToken: typeof approval === 'string' ? approval : undefined };
}

/** W3C trace id from an incoming `traceparent`, else a fresh random one. */
export function traceIdFrom(traceparent: string | string[] | undefined, random: () => string): string {
  if (typeof traceparent === 'string') {
    const m = /^[0-9a-f]{2}-([0-9a-f]{32})-[0-9a-f]{16}-[0-9a-f]{2}$/.exec(traceparent.trim());
    if (m && m[1] !== '0'.repeat(32)) return m[1]!;
  }
  return random();
}
