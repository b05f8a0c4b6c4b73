/**
 * How svc runs the units of a `work_units` job, over the work-unit service and
 * the one execute entry point (`ExecuteService.executeById`, the same call as
 * `POST /v1/work-units/{id}/execute`): composed in app.ts, given to the
 * scheduler as its `workUnits` port.
 *
 * - `check` (submission): the unit exists and the caller may read it; its tenant
 *   and contract, which the scheduler compares and plans with.
 * - `execute` (when due): on the job's tenant, as `scheduler:<submitter>` with
 *   the writer role, traced on its own. A unit already executed — by a process
 *   that died half-way through the job, or by hand — is not executed again:
 *   its manifest is reported with `previously_executed: true`, so a resumed job
 *   never runs a unit twice.
 */
import { makePrincipal } from '../auth/principal.ts';
import type { RequestContext } from '../context.ts';
import { newTraceId } from '../observability/trace-id.ts';
import type { DomainContext } from '../policy/audit-event.ts';
import type { WorkUnitRecord } from '../work-units/work-unit.ts';
import type { ExecutedUnit, SchedulerJob } from './job-record.ts';
import type { JobUnitInfo } from './scheduler-service.ts';

export interface JobWorkUnitDeps {
  workUnits: { get(ctx: RequestContext, id: string): Promise<WorkUnitRecord> };
  /** The execute entry point; a function because app.ts composes it after the scheduler. */
  execute: () => { executeById(ctx: RequestContext, workUnitId: string): Promise<{ work_unit_id: string; manifest_id: string; accepted: boolean }> };
}

export function jobWorkUnits(deps: JobWorkUnitDeps) {
  return {
    async check(ctx: DomainContext, id: string): Promise<JobUnitInfo> {
      const unit = await deps.workUnits.get({ ...ctx, traceId: ctx.traceId ?? newTraceId() }, id);
      return { tenant: unit.tenant, requested_contract: unit.requested_contract };
    },
    async execute(job: SchedulerJob, id: string): Promise<ExecutedUnit> {
      const ctx: RequestContext = { principal: makePrincipal(`scheduler:${job.actor}`, ['writer'], job.tenant), traceId: newTraceId() };
      const unit = await deps.workUnits.get(ctx, id);
      if (unit.state === 'executed' && unit.manifest_id) return { work_unit_id: id, manifest_id: unit.manifest_id, accepted: true, previously_executed: true };
      const r = await deps.execute().executeById(ctx, id);
      return { work_unit_id: r.work_unit_id, manifest_id: r.manifest_id, accepted: r.accepted };
    },
  };
}
