/** `/v1/platforms`: deployment targets, readiness per target (503 unless the target in use is ready), capability matrix. */
import type { FastifyInstance } from 'fastify';
import type { SvcApp } from '../../app.ts';
import { ctx } from '../request-context.ts';

export async function platformRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  server.get('/v1/platforms', { schema: { tags: ['platforms'], summary: 'Supported deployment targets and the one in use' } }, async (request) => app.platforms.list(ctx(request)));
  server.get('/v1/platforms/matrix', { schema: { tags: ['platforms'], summary: 'Capabilities × targets, with the tests and CI jobs that prove them' } }, async (request) => app.platforms.matrix(ctx(request)));
  server.get('/v1/platforms/readiness', { schema: { tags: ['platforms'], summary: 'Checks per target with reasons; 503 unless every required check of the target in use passes' } }, async (request, reply) => {
    const report = await app.platforms.readiness(ctx(request));
    return reply.code(report.ready ? 200 : 503).send(report);
  });
}
