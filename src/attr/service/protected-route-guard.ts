/**
 * The onRequest guard of every protected route. The token is checked first
 * (one constant-time hash) only to choose the bucket: authenticated and
 * unauthenticated callers are rate-limited in separate buckets per client
 * address (client-identity.ts), so a flood of bad or missing tokens cannot
 * lock the token holder out. Then the rate limit, then the 401. Both
 * refusals are counted by the error handler
 * (docs/decisions/130-rate-limit-identity-and-buckets.md).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AttrError } from '../errors.ts';
import type { BearerAuthenticator } from './bearer-auth.ts';
import type { ClientIdentity } from './client-identity.ts';
import type { ServiceMetrics } from './service-metrics.ts';
import type { SlidingWindowRateLimiter } from './sliding-window-rate-limiter.ts';

export function protectedRouteGuard(deps: { limiter: SlidingWindowRateLimiter; auth: BearerAuthenticator; metrics: ServiceMetrics; clientIdentity: ClientIdentity }) {
  return async function guard(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const check = deps.auth.check(request.headers.authorization);
    const client = deps.clientIdentity.resolve(request.socket.remoteAddress ?? request.ip, request.headers['x-forwarded-for']);
    const decision = deps.limiter.admit(`${check.ok ? 'auth' : 'anon'} ${client}`);
    if (!decision.allowed) {
      deps.metrics.rateLimited();
      reply.header('retry-after', String(Math.ceil(decision.retryAfterMs / 1000)));
      throw new AttrError('rate_limited', 'too many requests from this client; retry later', {
        details: { window_ms: deps.limiter.windowMs, max_requests: deps.limiter.maxRequests, retry_after_ms: decision.retryAfterMs },
      });
    }
    if (!check.ok) {
      reply.header('www-authenticate', 'Bearer realm="attr"');
      throw new AttrError('unauthenticated', 'a valid bearer token is required', { details: { reason: check.reason } });
    }
  };
}
