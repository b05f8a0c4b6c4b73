/**
 * svc.v1.BenchmarkService — the gRPC form of `/v1/benchmarks` (route
 * benchmarks.ts): suites, start a run, list, get, results.
 */
import { Type } from 'typebox';
import { validate } from '../../validation.ts';
import type { BenchmarkServiceHandlers } from '../generated/svc/v1/BenchmarkService.ts';
import { jsonResult } from '../mapping/json-result.ts';
import { restBody } from '../mapping/rest-body.ts';
import { fromOptionalStruct } from '../mapping/struct.ts';
import { type GrpcRuntime, unary } from '../rpc-handlers.ts';

/** The REST route's id pattern: a malformed id is INVALID_ARGUMENT on both surfaces. */
const RunId = Type.Object({ id: Type.String({ pattern: '^bm_[0-9a-hjkmnp-tv-z]{26}$' }) });
const runId = (id: string | undefined) => validate(RunId, { id: id ?? '' }, 'invalid_request', 'path parameters').id;

export function benchmarkService(rt: GrpcRuntime): BenchmarkServiceHandlers {
  const { benchmarks } = rt.app;
  return {
    ListSuites: unary(rt, 'BenchmarkService/ListSuites', async (ctx) => ({ result: jsonResult(await benchmarks.listSuites(ctx)) })),
    StartRun: unary(rt, 'BenchmarkService/StartRun', async (ctx, req) => ({ run: jsonResult(await benchmarks.start(ctx, fromOptionalStruct(req.request) ?? {})) })),
    ListRuns: unary(rt, 'BenchmarkService/ListRuns', async (ctx, req) => ({ result: jsonResult(await benchmarks.list(ctx, restBody({ limit: req.limit, continuation_token: req.continuation_token }))) })),
    GetRun: unary(rt, 'BenchmarkService/GetRun', async (ctx, req) => ({ run: jsonResult(await benchmarks.get(ctx, runId(req.run_id))) })),
    GetRunResults: unary(rt, 'BenchmarkService/GetRunResults', async (ctx, req) => {
      const r = await benchmarks.results(ctx, runId(req.run_id), restBody({ format: req.format }));
      return r.format === 'markdown' ? { markdown: String(r.body) } : { result: jsonResult(r.body as object) };
    }),
  };
}
