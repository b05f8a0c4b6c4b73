/** svc.v1.AdminService — the gRPC form of `GET /v1/admin/readiness` and `GET /v1/admin/switches` (route admin.ts). */
import { checkReadiness } from '../../readiness.ts';
import type { AdminServiceHandlers } from '../generated/svc/v1/AdminService.ts';
import { toStruct } from '../mapping/struct.ts';
import { type GrpcRuntime, unary } from '../rpc-handlers.ts';

export function adminService(rt: GrpcRuntime): AdminServiceHandlers {
  const { app } = rt;
  return {
    Readiness: unary(rt, 'AdminService/Readiness', async (ctx) => {
      const rollout = app.rollout.readinessFor(ctx);
      const report = await checkReadiness(app);
      return { ready: report.ready, checks: report.checks, rollout: toStruct({ ...rollout }), policy_startup: toStruct({ ...app.policy.startup }) };
    }),

    GetSwitches: unary(rt, 'AdminService/GetSwitches', (ctx) => {
      const r = app.rollout.readinessFor(ctx);
      return { switches: toStruct({ ...r.switches }), guardrail: toStruct({ ...r.guardrail }) };
    }),
  };
}
