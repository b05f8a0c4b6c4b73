/**
 * The onRequest guard of every protected route: per-client rate limit first
 * (so floods are refused before any hashing work, authenticated or not),
 * then the bearer token. Both refusals are counted by the error handler.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AttrError } from '../errors.ts';
import type { BearerAuthenticator } from './bearer-auth.ts';
import type { ServiceMetrics } from './service-metrics.ts';
import type { SlidingWindowRateLimiter } from './sliding-window-rate-limiter.ts';

export function protectedRouteGuard(deps: { limiter: SlidingWindowRateLimiter; auth: BearerAuthenticator; metrics: ServiceMetrics }) {
  return async function guard(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    // Per client = per remote address as seen by this process (docs/decisions/124-rate-limit-client-identity.md).
    const decision = deps.limiter.admit(request.ip);
    if (!decision.allowed) {
      deps.metrics.rateLimited();
      reply.header('retry-after', String(Math.ceil(decision.retryAfterMs / 1000)));
      throw new AttrError('rate_limited', 'too many requests from this client; retry later', {
        details: { window_ms: deps.limiter.windowMs, max_requests: deps.limiter.maxRequests, retry_after_ms: decision.retryAfterMs },
      });
    }
    const check = deps.auth.check(request.headers.authorization);
    if (!check.ok) {
      reply.header('www-authenticate', 'Bearer realm="attr"');
      throw new AttrError('unauthenticated', 'a valid bearer token is required', { details: { reason: check.reason } });
    }
  };
}
