/**
 * svc.v1.AdapterService — the gRPC form of `/v1/adapters` (route adapters.ts):
 * list, get, and `Call` for the adapter-specific operations, dispatched by
 * the same table of domain functions (src/svc/adapters/adapter-operations.ts).
 */
import { Type } from 'typebox';
import { ADAPTER_NAME_PATTERN } from '../../adapters/adapter-registry.ts';
import { requirePermission } from '../../auth/principal.ts';
import { setRequestAttributes } from '../../observability/tracing.ts';
import { validate } from '../../validation.ts';
import type { AdapterServiceHandlers } from '../generated/svc/v1/AdapterService.ts';
import { jsonResult } from '../mapping/json-result.ts';
import { fromOptionalStruct } from '../mapping/struct.ts';
import { type GrpcRuntime, unary } from '../rpc-handlers.ts';

const Name = Type.Object({ name: Type.String({ pattern: ADAPTER_NAME_PATTERN }) });
const CallTarget = Type.Object({ adapter: Type.String({ pattern: ADAPTER_NAME_PATTERN }), operation: Type.String({ minLength: 1, maxLength: 64, pattern: '^[a-z][a-z0-9_/-]*$' }) });

export function adapterService(rt: GrpcRuntime): AdapterServiceHandlers {
  const { registry, operations } = rt.app.adapters;
  return {
    ListAdapters: unary(rt, 'AdapterService/ListAdapters', async (ctx) => {
      requirePermission(ctx.principal, 'work_units:read');
      return { result: jsonResult({ adapters: await registry.listAll() }) };
    }),
    GetAdapter: unary(rt, 'AdapterService/GetAdapter', async (ctx, req) => {
      requirePermission(ctx.principal, 'work_units:read');
      const { name } = validate(Name, { name: req.name ?? '' }, 'invalid_request', 'path parameters');
      return { result: jsonResult(await registry.getAny(name)) };
    }),
    Call: unary(rt, 'AdapterService/Call', async (ctx, req) => {
      const t = validate(CallTarget, { adapter: req.adapter ?? '', operation: req.operation ?? '' }, 'invalid_request', 'path parameters');
      setRequestAttributes({ adapter: t.adapter });
      return { result: jsonResult(await operations.call(ctx, t.adapter, t.operation, fromOptionalStruct(req.request) ?? {})) };
    }),
  };
}
