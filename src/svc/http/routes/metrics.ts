/** Prometheus exposition (authenticated, `metrics:read`). */
import type { FastifyInstance } from 'fastify';
import type { SvcApp } from '../../app.ts';
import { requirePermission } from '../../auth/principal.ts';
import { ctx } from '../request-context.ts';

export async function metricsRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  server.get('/metrics', { schema: { tags: ['observability'], summary: 'Prometheus metrics' } }, async (request, reply) => {
    requirePermission(ctx(request).principal, 'metrics:read');
    return reply.type(app.metrics.registry.contentType).send(await app.metrics.registry.metrics());
  });
}
