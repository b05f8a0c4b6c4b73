/**
 * `/v1/scheduler`: create, plan preview, get, list, cancel, complete, forecasts.
 * Thin adapter over `app.scheduler` (src/svc/scheduler/scheduler-service.ts).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { SvcApp } from '../../app.ts';
import { CompleteJobRequest, CreateJobRequest, JobListQuery, LoadForecastRequest } from '../../scheduler/job-record.ts';
import { validate } from '../../validation.ts';
import { optionalInt } from '../query.ts';
import { setWorkUnitHeaders } from '../headers.ts';
import { ctx } from '../request-context.ts';

const IdParams = Type.Object({ id: Type.String({ pattern: '^job_[0-9a-hjkmnp-tv-z]{26}$' }) });

export async function schedulerRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  const doc = { attachValidation: true } as const;
  const tags = ['scheduler'];

  server.post('/v1/scheduler/jobs', { ...doc, schema: { tags, summary: 'Submit a flexible job; svc plans its start (estimates say so)', body: CreateJobRequest } }, async (request, reply) => {
    const job = await app.scheduler.create(ctx(request), request.body);
    setWorkUnitHeaders(reply, { workUnitId: job.work_unit_id });
    return reply.status(201).send({ job, estimate: true, work_unit_id: job.work_unit_id });
  });

  server.post('/v1/scheduler/plan', { ...doc, schema: { tags, summary: 'Plan preview: the start svc would choose; stores nothing', body: CreateJobRequest } }, async (request) => {
    const { tenant, plan } = await app.scheduler.preview(ctx(request), request.body);
    return { tenant, plan };
  });

  server.get('/v1/scheduler/jobs', { ...doc, schema: { tags, summary: 'List jobs (filters: tenant, state, zone; cursor pagination)', querystring: JobListQuery } }, async (request) => {
    const q = request.query as Record<string, string | undefined>;
    return app.scheduler.listFromBody(ctx(request), { ...q, ...(q.limit !== undefined ? { limit: optionalInt(q.limit, 'limit') } : {}) });
  });

  server.get('/v1/scheduler/jobs/:id', { ...doc, schema: { tags, summary: 'Get a job', params: IdParams } }, async (request) => {
    const { id } = validate(IdParams, request.params, 'invalid_request', 'path parameters');
    return { job: await app.scheduler.get(ctx(request), id) };
  });

  server.post('/v1/scheduler/jobs/:id/cancel', { ...doc, schema: { tags, summary: 'Cancel a scheduled or running job', params: IdParams } }, async (request, reply) => {
    const { id } = validate(IdParams, request.params, 'invalid_request', 'path parameters');
    const job = await app.scheduler.cancel(ctx(request), id);
    setWorkUnitHeaders(reply, { workUnitId: job.work_unit_id });
    return { job };
  });

  server.post('/v1/scheduler/jobs/:id/complete', { ...doc, schema: { tags, summary: 'Report that a started external job finished', params: IdParams, body: CompleteJobRequest } }, async (request, reply) => {
    const { id } = validate(IdParams, request.params, 'invalid_request', 'path parameters');
    const job = await app.scheduler.complete(ctx(request), id, request.body);
    setWorkUnitHeaders(reply, { workUnitId: job.work_unit_id });
    return { job };
  });

  server.post('/v1/scheduler/forecasts/pull', { ...doc, schema: { tags, summary: 'Pull forecasts from the configured providers now; reports each provider and zone' } }, async (request) => {
    return app.forecastPull.pull(ctx(request));
  });

  server.post('/v1/scheduler/forecasts/reload', { ...doc, schema: { tags, summary: "Re-read the server's forecast file (scheduler.forecast_file) now; a malformed file loads nothing (400)" } }, async (request) => {
    return app.forecastFile.reload(ctx(request));
  });

  server.post('/v1/scheduler/forecasts', { ...doc, schema: { tags, summary: 'Load forecast points (operator); scheduled jobs in those zones are re-planned', body: LoadForecastRequest } }, async (request) => {
    return app.scheduler.loadForecast(ctx(request), request.body);
  });
}
