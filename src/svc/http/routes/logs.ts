/** `POST /v1/logs/query`: redacted operational log entries. */
import type { FastifyInstance } from 'fastify';
import type { SvcApp } from '../../app.ts';
import { LogQuery } from '../../logs/query.ts';
import { ctx } from '../request-context.ts';

export async function logRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  server.post('/v1/logs/query', { attachValidation: true, schema: { tags: ['logs'], summary: 'Query operational logs (redacted)', body: LogQuery } }, async (request) =>
    app.logs.query(ctx(request), request.body ?? {}),
  );
}
