/** svc.v1.AdminService — the gRPC form of `/v1/admin` (route admin.ts): readiness, switches (read and change), alerts, legal holds, restore tests, garbage collection, chunk migration. */
import { checkReadiness } from '../../readiness.ts';
import type { AdminServiceHandlers } from '../generated/svc/v1/AdminService.ts';
import { toStruct } from '../mapping/struct.ts';
import { type GrpcRuntime, unary } from '../rpc-handlers.ts';
import { jsonResult } from '../mapping/json-result.ts';
import { restBody } from '../mapping/rest-body.ts';
import { fromOptionalStruct } from '../mapping/struct.ts';

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

    ChangeSwitch: unary(rt, 'AdminService/ChangeSwitch', async (ctx, req) => {
      // policy_bundle takes `name: null` on REST to go back to the configured bundle; absent is that null here.
      const name = req.switch === 'policy_bundle' ? (req.name ?? null) : req.name;
      const r = await app.operations.switchChange(ctx, restBody({ switch: req.switch, enabled: req.enabled, name, disabled: req.disabled, version: req.version }));
      return { work_unit_id: r.work_unit_id, result: jsonResult(r) };
    }),

    ListAlerts: unary(rt, 'AdminService/ListAlerts', async (ctx) => ({ result: jsonResult(await app.alerts.report(ctx)) })),

    ListLegalHolds: unary(rt, 'AdminService/ListLegalHolds', async (ctx, req) => ({ result: jsonResult(await app.legalHolds.list(ctx, req.tenant || undefined)) })),

    PlaceLegalHold: unary(rt, 'AdminService/PlaceLegalHold', async (ctx, req) => ({
      result: jsonResult(await app.legalHolds.place(ctx, restBody({ tenant: req.tenant, scope: req.scope, target: req.target, reason: req.reason }))),
    })),

    ReleaseLegalHold: unary(rt, 'AdminService/ReleaseLegalHold', async (ctx, req) => ({ result: jsonResult(await app.legalHolds.release(ctx, req.legal_hold_id ?? '')) })),

    ListPlatforms: unary(rt, 'AdminService/ListPlatforms', async (ctx) => ({ result: jsonResult(await app.platforms.list(ctx)) })),

    PlatformMatrix: unary(rt, 'AdminService/PlatformMatrix', async (ctx) => ({ result: jsonResult(await app.platforms.matrix(ctx)) })),

    PlatformReadiness: unary(rt, 'AdminService/PlatformReadiness', async (ctx) => {
      const report = await app.platforms.readiness(ctx);
      return { ready: report.ready, result: jsonResult(report) };
    }),

    // The same request validation and permission check (storage:gc, deployment-wide admin) as POST /v1/admin/gc.
    RunGc: unary(rt, 'AdminService/RunGc', async (ctx, req) => {
      const report = await app.gc.runRequest(ctx, restBody({ dry_run: req.dry_run }));
      return { run_id: report.run_id, result: jsonResult({ result: report }) };
    }),

    // The same validation and permission check as POST /v1/admin/chunks/migrate.
    MigrateChunks: unary(rt, 'AdminService/MigrateChunks', async (ctx, req) => {
      const report = await app.chunkMigration.runRequest(ctx, restBody({ dry_run: req.dry_run }));
      return { run_id: report.run_id, result: jsonResult({ result: report }) };
    }),

    RunRestoreTest: unary(rt, 'AdminService/RunRestoreTest', async (ctx, req) => ({ result: jsonResult({ result: await app.restoreTests.run(ctx, fromOptionalStruct(req.request) ?? {}) }) })),
  };
}
