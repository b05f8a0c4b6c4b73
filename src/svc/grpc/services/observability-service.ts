/** svc.v1.ObservabilityService — the gRPC form of `GET /metrics` (route metrics.ts). */
import { requirePermission } from '../../auth/principal.ts';
import type { ObservabilityServiceHandlers } from '../generated/svc/v1/ObservabilityService.ts';
import { type GrpcRuntime, unary } from '../rpc-handlers.ts';

export function observabilityService(rt: GrpcRuntime): ObservabilityServiceHandlers {
  const { registry } = rt.app.metrics;
  return {
    Metrics: unary(rt, 'ObservabilityService/Metrics', async (ctx) => {
      requirePermission(ctx.principal, 'metrics:read');
      return { content_type: registry.contentType, text: await registry.metrics() };
    }),
  };
}
