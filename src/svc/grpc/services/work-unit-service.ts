/**
 * svc.v1.WorkUnitService — the gRPC form of `/v1/work-units` (routes
 * work-units.ts and execute.ts): the same domain calls, the same metrics.
 */
import type { WorkUnitServiceHandlers } from '../generated/svc/v1/WorkUnitService.ts';
import { toWorkUnitMessage, inlineBody, planOptionsBody, workUnitCreateBody } from '../mapping/work-unit-messages.ts';
import { workUnitStateCodec } from '../mapping/enums.ts';
import { optional, restBody } from '../mapping/rest-body.ts';
import { toExecuteResultMessage, toPlanMessage } from '../mapping/plan-messages.ts';
import { type GrpcRuntime, unary } from '../rpc-handlers.ts';
import { toView } from '../../work-units/work-unit.ts';

export function workUnitService(rt: GrpcRuntime): WorkUnitServiceHandlers {
  const { app } = rt;
  const hot = { guarded: true };
  return {
    Create: unary(rt, 'WorkUnitService/Create', async (ctx, req) => ({
      work_unit: toWorkUnitMessage(toView(await app.workUnits.create(ctx, workUnitCreateBody(req.work_unit)))),
    }), hot),

    Get: unary(rt, 'WorkUnitService/Get', async (ctx, req) => ({ work_unit: toWorkUnitMessage(toView(await app.workUnits.get(ctx, req.work_unit_id ?? ''))) }), hot),

    Plan: unary(rt, 'WorkUnitService/Plan', async (ctx, req) => ({
      plan: toPlanMessage(await app.plans.planById(ctx, req.work_unit_id ?? '', planOptionsBody(req.options) ?? {})),
    }), hot),

    PlanInline: unary(rt, 'WorkUnitService/PlanInline', async (ctx, req) => ({
      plan: toPlanMessage(await app.plans.planInline(ctx, inlineBody(req.work_unit, req.options))),
    }), hot),

    Execute: unary(rt, 'WorkUnitService/Execute', async (ctx, req) => ({
      result: toExecuteResultMessage(await app.objects.execute.executeById(ctx, req.work_unit_id ?? '', planOptionsBody(req.options) ?? {})),
    }), hot),

    ExecuteInline: unary(rt, 'WorkUnitService/ExecuteInline', async (ctx, req) => ({
      result: toExecuteResultMessage(await app.objects.execute.executeInline(ctx, inlineBody(req.work_unit, req.options))),
    }), hot),

    ListWorkUnits: unary(rt, 'WorkUnitService/ListWorkUnits', async (ctx, req) => {
      const page = await app.workUnits.list(
        ctx,
        restBody({ tenant: req.tenant, kind: req.kind, state: workUnitStateCodec.toWord(req.state), from: req.from, to: req.to, limit: req.limit, continuation_token: req.continuation_token }),
      );
      return { work_units: page.work_units.map((wu) => toWorkUnitMessage(toView(wu))), next_continuation_token: optional(page.next_continuation_token) };
    }),
  };
}
