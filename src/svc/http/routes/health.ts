/** Liveness and readiness (public). Readiness fails closed with its reasons. */
import type { FastifyInstance } from 'fastify';
import type { SvcApp } from '../../app.ts';
import { checkReadiness } from '../../readiness.ts';

export async function healthRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  server.get('/healthz', { schema: { tags: ['health'], summary: 'Liveness' } }, async () => ({ status: 'ok' }));
  server.get('/readyz', { schema: { tags: ['health'], summary: 'Readiness: storage reachable, migrations applied, policy bundle loaded' } }, async (_request, reply) => {
    const report = await checkReadiness(app);
    return reply.status(report.ready ? 200 : 503).send(report);
  });
}
