/** `GET /v1/conformance/ai`: a live self-check of the OpenAI-compatible surface (src/svc/ai/conformance). */
import type { FastifyInstance } from 'fastify';
import type { SvcApp } from '../../app.ts';
import { runAiConformance } from '../../ai/conformance/ai-conformance.ts';
import { requirePermission } from '../../auth/principal.ts';
import { ctx } from '../request-context.ts';

export async function conformanceRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  server.get('/v1/conformance/ai', { schema: { tags: ['ai'] } }, async (request) => {
    requirePermission(ctx(request).principal, 'work_units:write');
    // The caller's own credential: the self-check can do exactly what the caller can.
    const auth: Record<string, string> = {};
    for (const h of ['x-api-key', 'authorization'] as const) {
      const v = request.headers[h];
      if (typeof v === 'string') auth[h] = v;
    }
    return runAiConformance(async (method, url, body, headers) => {
      const r = await server.inject({ method, url, headers: { ...auth, ...(headers ?? {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });
      return { status: r.statusCode, headers: r.headers, body: r.body };
    }, app.ai.catalog);
  });
}
