/** svc.v1.ObservabilityService — the gRPC form of `GET /metrics` (route metrics.ts), `POST /v1/logs/query` (route logs.ts) and `/v1/reports` (route reports.ts). */
import { requirePermission } from '../../auth/principal.ts';
import type { ObservabilityServiceHandlers } from '../generated/svc/v1/ObservabilityService.ts';
import { jsonResult } from '../mapping/json-result.ts';
import { nonEmptyList, restBody } from '../mapping/rest-body.ts';
import { type GrpcRuntime, unary } from '../rpc-handlers.ts';

export function observabilityService(rt: GrpcRuntime): ObservabilityServiceHandlers {
  const { registry } = rt.app.metrics;
  return {
    Metrics: unary(rt, 'ObservabilityService/Metrics', async (ctx) => {
      requirePermission(ctx.principal, 'metrics:read');
      return { content_type: registry.contentType, text: await registry.metrics() };
    }),

    DashboardReport: unary(rt, 'ObservabilityService/DashboardReport', async (ctx, req) => ({
      result: jsonResult(await rt.app.reports.dashboard(ctx, restBody({ tenant: req.tenant, from: req.from, to: req.to }))),
    })),

    Recommendations: unary(rt, 'ObservabilityService/Recommendations', async (ctx, req) => ({
      result: jsonResult(await rt.app.reports.recommendations(ctx, restBody({ tenant: req.tenant, from: req.from, to: req.to }))),
    })),

    QueryLogs: unary(rt, 'ObservabilityService/QueryLogs', async (ctx, req) => ({
      result: jsonResult(await rt.app.logs.query(ctx, restBody({ tenant: req.tenant, event_types: nonEmptyList(req.event_types), limit: req.limit }))),
    })),
  };
}
