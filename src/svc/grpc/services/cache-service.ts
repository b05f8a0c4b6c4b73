/**
 * svc.v1.CacheService — the gRPC form of `/v1/cache/store` and
 * `/v1/cache/exact/lookup` (route cache.ts). The request schemas are the
 * REST ones; the server runs the verifier, and the messages have no field a
 * client could use to claim it passed.
 */
import { ExactLookupRequest, SemanticClearRequest, SemanticLookupRequest } from '../../cache/cache-schemas.ts';
import { jsonResult } from '../mapping/json-result.ts';
import { validate } from '../../validation.ts';
import type { CacheServiceHandlers } from '../generated/svc/v1/CacheService.ts';
import { restBody } from '../mapping/rest-body.ts';
import { fromOptionalStruct, fromOptionalValue, toValue } from '../mapping/struct.ts';

const structBody = (s: Parameters<typeof fromOptionalStruct>[0]) => fromOptionalStruct(s) ?? {};
import { type GrpcRuntime, unary } from '../rpc-handlers.ts';

export function cacheService(rt: GrpcRuntime): CacheServiceHandlers {
  const { exactCache } = rt.app.ai;
  const hot = { guarded: true };
  return {
    Store: unary(rt, 'CacheService/Store', async (ctx, req) => {
      const body = restBody({ key: req.key, tenant: req.tenant, value: fromOptionalValue(req.value), verification: fromOptionalStruct(req.verification), ttl_seconds: req.ttl_seconds });
      const r = await rt.app.operations.cacheStore(ctx, body);
      return { stored: r.stored, key: r.key, tenant: r.tenant, verifier: r.verifier, expires_at: r.expires_at, work_unit_id: r.work_unit_id };
    }, hot),

    ExactLookup: unary(rt, 'CacheService/ExactLookup', async (ctx, req) => {
      const body = validate(ExactLookupRequest, restBody({ key: req.key, tenant: req.tenant }));
      const r = await exactCache.lookup(ctx, body);
      if (!r.hit) return { hit: false, key: body.key, reason: r.reason };
      const e = r.entry;
      return { hit: true, key: e.key, tenant: e.tenant, value: toValue(e.value), verifier: r.verifier, age_seconds: r.age_seconds, expires_at: e.expires_at };
    }, hot),

    SemanticLookup: unary(rt, 'CacheService/SemanticLookup', async (ctx, req) => {
      const r = await rt.app.ai.semanticCache.lookup(ctx, validate(SemanticLookupRequest, structBody(req.request)));
      return { hit: r.hit, result: jsonResult(r) };
    }, hot),

    SemanticStore: unary(rt, 'CacheService/SemanticStore', async (ctx, req) => {
      const r = await rt.app.operations.semanticStore(ctx, structBody(req.request));
      return { work_unit_id: r.work_unit_id, result: jsonResult(r) };
    }, hot),

    SemanticCalibrate: unary(rt, 'CacheService/SemanticCalibrate', async (ctx, req) => {
      const r = await rt.app.operations.semanticCalibrate(ctx, structBody(req.request));
      return { work_unit_id: r.work_unit_id, result: jsonResult(r) };
    }),

    SemanticClear: unary(rt, 'CacheService/SemanticClear', async (ctx, req) => {
      const r = await rt.app.operations.semanticClear(ctx, validate(SemanticClearRequest, restBody({ tenant: req.tenant, domain: req.domain })));
      return { work_unit_id: r.work_unit_id, result: jsonResult(r) };
    }),
  };
}
