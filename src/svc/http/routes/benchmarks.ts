/**
 * `/v1/benchmarks`: suites, runs (start, follow, list) and their results as
 * JSON or Markdown. Thin adapter over `app.benchmarks`
 * (src/svc/benchmarks/benchmark-service.ts; docs/benchmarks.md).
 */
import type { FastifyInstance } from 'fastify';
import { Type } from 'typebox';
import type { SvcApp } from '../../app.ts';
import { BenchmarkResultsQuery, BenchmarkRunListQuery, StartBenchmarkRequest } from '../../benchmarks/benchmark-run.ts';
import { validate } from '../../validation.ts';
import { optionalInt } from '../query.ts';
import { ctx } from '../request-context.ts';

const IdParams = Type.Object({ id: Type.String({ pattern: '^bm_[0-9a-hjkmnp-tv-z]{26}$' }) });

export async function benchmarkRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  const doc = { attachValidation: true } as const;
  const tags = ['benchmarks'];

  server.get('/v1/benchmarks', { schema: { tags, summary: 'Suites a run can use, their figures and default budgets, and the budget ceilings' } }, async (request) => app.benchmarks.listSuites(ctx(request)));

  server.post(
    '/v1/benchmarks/runs',
    { ...doc, schema: { tags, summary: 'Start a bounded run (benchmarks:run; one at a time; low CPU priority; scratch storage). 202 with the run; follow it with GET …/runs/{id}', body: StartBenchmarkRequest } },
    async (request, reply) => reply.status(202).send({ run: await app.benchmarks.start(ctx(request), request.body) }),
  );

  server.get('/v1/benchmarks/runs', { ...doc, schema: { tags, summary: 'Runs, newest first (continuation_token pagination)', querystring: BenchmarkRunListQuery } }, async (request) => {
    const q = request.query as Record<string, string | undefined>;
    return app.benchmarks.list(ctx(request), { ...q, ...(q.limit !== undefined ? { limit: optionalInt(q.limit, 'limit') } : {}) });
  });

  server.get('/v1/benchmarks/runs/:id', { ...doc, schema: { tags, summary: 'A run: state, progress (phase, step/steps), budget, failure reason', params: IdParams } }, async (request) => {
    const { id } = validate(IdParams, request.params, 'invalid_request', 'path parameters');
    return { run: await app.benchmarks.get(ctx(request), id) };
  });

  server.get(
    '/v1/benchmarks/runs/:id/results',
    { ...doc, schema: { tags, summary: 'Results of a completed run: JSON (figures, anchors, ratios, environment) or format=markdown (text/markdown)', params: IdParams, querystring: BenchmarkResultsQuery } },
    async (request, reply) => {
      const { id } = validate(IdParams, request.params, 'invalid_request', 'path parameters');
      const r = await app.benchmarks.results(ctx(request), id, request.query);
      return r.format === 'markdown' ? reply.type('text/markdown; charset=utf-8').send(r.body) : r.body;
    },
  );
}
