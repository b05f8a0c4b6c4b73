/**
 * Cache endpoints: exact store and lookup (spec), and the semantic cache
 * (lookup, store, clear — paths documented in docs/caches.md). Thin: the
 * schemas reject unknown fields (a `verifier_passed` in a store request is
 * a 400), the cache services decide everything else.
 */
import type { FastifyInstance } from 'fastify';
import type { SvcApp } from '../../app.ts';
import { CacheStoreRequest, ExactLookupRequest, SemanticCalibrateRequest, SemanticClearRequest, SemanticLookupRequest, SemanticStoreRequest } from '../../cache/cache-schemas.ts';
import { validate } from '../../validation.ts';
import { setWorkUnitHeaders } from '../headers.ts';
import { ctx } from '../request-context.ts';

export async function cacheRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  const tags = ['cache'];
  server.post('/v1/cache/store', { schema: { body: CacheStoreRequest, tags }, attachValidation: true }, async (request, reply) => {
    const result = await app.operations.cacheStore(ctx(request), request.body);
    setWorkUnitHeaders(reply, { workUnitId: result.work_unit_id });
    return result;
  });

  server.post('/v1/cache/exact/lookup', { schema: { body: ExactLookupRequest, tags }, attachValidation: true }, async (request, reply) => {
    const body = validate(ExactLookupRequest, request.body);
    const result = await app.ai.exactCache.lookup(ctx(request), body);
    reply.header('X-SVC-Cache', result.hit ? 'exact_hit' : 'miss');
    if (!result.hit) return { hit: false, key: body.key, reason: result.reason };
    const e = result.entry;
    return { hit: true, key: e.key, tenant: e.tenant, value: e.value, verifier: result.verifier, age_seconds: result.age_seconds, expires_at: e.expires_at };
  });

  server.post('/v1/cache/semantic/lookup', { schema: { body: SemanticLookupRequest, tags }, attachValidation: true }, async (request, reply) => {
    const result = await app.ai.semanticCache.lookup(ctx(request), validate(SemanticLookupRequest, request.body));
    reply.header('X-SVC-Cache', result.hit ? 'semantic_hit' : 'miss');
    return result;
  });

  server.post('/v1/cache/semantic/store', { schema: { body: SemanticStoreRequest, tags }, attachValidation: true }, async (request, reply) => {
    const result = await app.operations.semanticStore(ctx(request), request.body);
    setWorkUnitHeaders(reply, { workUnitId: result.work_unit_id });
    return result;
  });

  server.post('/v1/cache/semantic/calibrate', { schema: { body: SemanticCalibrateRequest, tags, summary: "Set a domain's threshold at a target false acceptance, measured on the tenant's labelled pairs" }, attachValidation: true }, async (request, reply) => {
    const result = await app.operations.semanticCalibrate(ctx(request), request.body);
    setWorkUnitHeaders(reply, { workUnitId: result.work_unit_id });
    return result;
  });

  server.post('/v1/cache/semantic/clear', { schema: { body: SemanticClearRequest, tags }, attachValidation: true }, async (request, reply) => {
    const result = await app.operations.semanticClear(ctx(request), validate(SemanticClearRequest, request.body ?? {}));
    setWorkUnitHeaders(reply, { workUnitId: result.work_unit_id });
    return result;
  });
}
