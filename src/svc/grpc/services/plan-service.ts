/** svc.v1.PlanService — the gRPC form of `GET /v1/plans[/{id}]` (route plans.ts). */
import type { PlanServiceHandlers } from '../generated/svc/v1/PlanService.ts';
import { toPlanMessage } from '../mapping/plan-messages.ts';
import { optional } from '../mapping/rest-body.ts';
import { type GrpcRuntime, unary } from '../rpc-handlers.ts';

export function planService(rt: GrpcRuntime): PlanServiceHandlers {
  const { app } = rt;
  const hot = { guarded: true };
  return {
    Get: unary(rt, 'PlanService/Get', async (ctx, req) => ({ plan: toPlanMessage(await app.plans.get(ctx, req.plan_id ?? '')) }), hot),

    List: unary(rt, 'PlanService/List', async (ctx, req) => {
      const page = await app.plans.list(ctx, { tenant: req.tenant, work_unit_id: req.work_unit_id, after: req.after, limit: req.limit });
      return { plans: page.plans.map(toPlanMessage), next_cursor: optional(page.next_cursor) };
    }, hot),
  };
}
