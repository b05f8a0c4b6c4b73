/**
 * svc.v1.SchedulerService — the gRPC form of `/v1/scheduler` (route
 * scheduler.ts): the same domain calls on `app.scheduler`, plus WatchJob, a
 * server stream of one job's state changes.
 */
import type { SchedulerJob as SchedulerJobMessage } from '../generated/svc/v1/SchedulerJob.ts';
import type { SchedulerJobRequest } from '../generated/svc/v1/SchedulerJobRequest.ts';
import type { SchedulerServiceHandlers } from '../generated/svc/v1/SchedulerService.ts';
import type { SchedulerServiceWatchJobResponse } from '../generated/svc/v1/SchedulerServiceWatchJobResponse.ts';
import { TERMINAL_STATES, type JobState, type SchedulerJob } from '../../scheduler/job-record.ts';
import type { JobPlan } from '../../scheduler/scheduler-service.ts';
import { contractCodec } from '../mapping/enums.ts';
import { nonEmptyList, optional, restBody } from '../mapping/rest-body.ts';
import { toOptionalStruct } from '../mapping/struct.ts';
import { jsonResult } from '../mapping/json-result.ts';
import { type GrpcRuntime, type MessageSink, serverStream, unary } from '../rpc-handlers.ts';

/** Other processes' changes are seen by polling at this interval; this process's by the ledger notification. */
const WATCH_POLL_MS = 1_000;

function jobRequestBody(req: SchedulerJobRequest | null | undefined): Record<string, unknown> {
  const r = req ?? {};
  const metadata = r.metadata && Object.keys(r.metadata).length > 0 ? r.metadata : undefined;
  return restBody({
    tenant: r.tenant, earliest_start: r.earliest_start, deadline: r.deadline, duration_seconds: r.duration_seconds === undefined ? undefined : Number(r.duration_seconds),
    energy_kwh: r.energy_kwh === undefined ? undefined : Number(r.energy_kwh), average_power_w: r.average_power_w === undefined ? undefined : Number(r.average_power_w),
    zone: r.zone, priority: r.priority, mode: r.mode, work_unit_id: r.work_unit_id, metadata, webhook_url: r.webhook_url, kind: r.kind, work_unit_ids: nonEmptyList(r.work_unit_ids),
    contract: contractCodec.toWord(r.contract),
  });
}

export function toSchedulerJobMessage(job: SchedulerJob): SchedulerJobMessage {
  return {
    id: job.id, tenant: job.tenant, kind: job.kind, state: job.state, mode: job.mode, zone: job.zone, priority: job.priority,
    work_unit_id: optional(job.work_unit_id), earliest_start: job.earliest_start, deadline: job.deadline, duration_s: job.duration_s,
    energy_kwh: job.energy_kwh, metadata: job.metadata, baseline_start: job.baseline_start, planned_start: job.planned_start, run_at: job.run_at,
    baseline_gco2: optional(job.baseline_gco2), planned_gco2: optional(job.planned_gco2), shift_minutes: job.shift_minutes,
    forecast_source: job.forecast_source, forecast_age_s: optional(job.forecast_age_s), plan_reason: job.plan_reason,
    started_at: optional(job.started_at), completed_at: optional(job.completed_at), outcome: optional(job.outcome),
    actor: job.actor, created_at: job.created_at, updated_at: job.updated_at, webhook_url: optional(job.webhook_url), work_unit_ids: job.work_unit_ids, result: toOptionalStruct(job.result as Record<string, unknown> | null),
    contract: contractCodec.fromWord(job.contract),
  };
}

function toPlanMessage(plan: JobPlan) {
  return { ...plan, baseline_gco2: optional(plan.baseline_gco2), planned_gco2: optional(plan.planned_gco2), forecast_age_s: optional(plan.forecast_age_s) };
}

export function schedulerService(rt: GrpcRuntime): SchedulerServiceHandlers {
  const { app } = rt;
  return {
    SubmitJob: unary(rt, 'SchedulerService/SubmitJob', async (ctx, req) => ({ job: toSchedulerJobMessage(await app.scheduler.create(ctx, jobRequestBody(req.job))), estimate: true })),

    PreviewPlan: unary(rt, 'SchedulerService/PreviewPlan', async (ctx, req) => {
      const { tenant, plan } = await app.scheduler.preview(ctx, jobRequestBody(req.job));
      return { tenant, plan: toPlanMessage(plan) };
    }),

    GetJob: unary(rt, 'SchedulerService/GetJob', async (ctx, req) => ({ job: toSchedulerJobMessage(await app.scheduler.get(ctx, req.job_id ?? '')) })),

    ListJobs: unary(rt, 'SchedulerService/ListJobs', async (ctx, req) => {
      const page = await app.scheduler.listFromBody(ctx, restBody({ tenant: req.tenant, state: req.state, zone: req.zone, after: req.after, limit: req.limit }));
      return { jobs: page.jobs.map(toSchedulerJobMessage), next_after: optional(page.next_after) };
    }),

    CancelJob: unary(rt, 'SchedulerService/CancelJob', async (ctx, req) => ({ job: toSchedulerJobMessage(await app.scheduler.cancel(ctx, req.job_id ?? '')) })),

    CompleteJob: unary(rt, 'SchedulerService/CompleteJob', async (ctx, req) => ({
      job: toSchedulerJobMessage(await app.scheduler.complete(ctx, req.job_id ?? '', restBody({ outcome: req.outcome }))),
    })),

    LoadForecast: unary(rt, 'SchedulerService/LoadForecast', async (ctx, req) =>
      app.scheduler.loadForecast(ctx, restBody({ source: req.source, points: nonEmptyList(req.points)?.map((p) => restBody({ ...p, gco2_per_kwh: p.gco2_per_kwh === undefined ? undefined : Number(p.gco2_per_kwh) })) })),
    ),

    WatchJob: serverStream(rt, 'SchedulerService/WatchJob', async (ctx, req, sink: MessageSink<SchedulerServiceWatchJobResponse>) => {
      const id = req.job_id ?? '';
      let job = await app.scheduler.get(ctx, id); // not found / not yours → the call's error status
      await sink.write({ job: toSchedulerJobMessage(job) });
      const until = AbortSignal.any([sink.signal, rt.closing]);
      let wake: (() => void) | undefined;
      const unsubscribe = app.ledgerService.subscribe(() => wake?.());
      const onAbort = () => wake?.();
      until.addEventListener('abort', onAbort);
      try {
        while (!TERMINAL_STATES.has(job.state as JobState) && !until.aborted) {
          await new Promise<void>((resolve) => {
            const timer = setTimeout(() => wake?.(), WATCH_POLL_MS);
            wake = () => {
              clearTimeout(timer);
              wake = undefined;
              resolve();
            };
          });
          if (until.aborted) break;
          const next = await app.scheduler.get(ctx, id);
          if (next.updated_at !== job.updated_at || next.state !== job.state) await sink.write({ job: toSchedulerJobMessage(next) });
          job = next;
        }
      } finally {
        unsubscribe();
        until.removeEventListener('abort', onAbort);
      }
    }),

    PullForecasts: unary(rt, 'SchedulerService/PullForecasts', async (ctx) => ({ result: jsonResult(await rt.app.forecastPull.pull(ctx)) })),

    ReloadForecasts: unary(rt, 'SchedulerService/ReloadForecasts', async (ctx) => ({ result: jsonResult(await rt.app.forecastFile.reload(ctx)) })),
  };
}
