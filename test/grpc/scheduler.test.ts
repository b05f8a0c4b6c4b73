/**
 * svc.v1.SchedulerService through a real gRPC client on SQLite and
 * PostgreSQL: the same domain as /v1/scheduler (a job submitted over gRPC is
 * the REST job), tenant isolation, bad input as INVALID_ARGUMENT with the
 * spec's error body and nothing stored, and WatchJob streaming each state
 * change until the job's final state.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { engines } from '../helpers/engines.ts';
import { ADMIN_KEY, KEYS } from '../helpers/server.ts';
import { type GrpcTestServer, errorBodyFrom, grpcFailure, openStream, startGrpcTestServer, unary, withKey } from './support/grpc-test-server.ts';

type Any = Record<string, any>;
const H = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

for (const engine of engines()) {
  describe(`gRPC SchedulerService on ${engine.name}`, { skip: engine.skip }, () => {
    let s: GrpcTestServer;
    before(async () => {
      s = await startGrpcTestServer({ engine: engine.name, env: { SVC_SCHEDULER_TICK_MS: '0' } });
    });
    after(async () => s?.close());

    const job = (extra: Any = {}) => ({ job: { deadline: iso(Date.now() + 12 * H), duration_seconds: 3600, zone: 'DE', energy_kwh: 2, metadata: { batch: 'grpc' }, ...extra } });

    test('SubmitJob, GetJob, ListJobs and the REST view agree; PreviewPlan stores nothing', async () => {
      const { job: submitted, estimate } = (await unary<Any, Any>(s.clients.scheduler, 'SubmitJob', job(), withKey(KEYS.acmeWriter))).response;
      assert.equal(estimate, true);
      assert.match(submitted.id, /^job_/);
      assert.equal(submitted.tenant, 'acme');
      assert.equal(submitted.state, 'scheduled');
      assert.deepEqual(submitted.metadata, { batch: 'grpc' });
      assert.equal(submitted.contract, 'CONTRACT_EXACT_BYTES', 'the default contract');
      const semantic = (await unary<Any, Any>(s.clients.scheduler, 'SubmitJob', job({ contract: 'CONTRACT_SEMANTIC' }), withKey(KEYS.acmeWriter))).response.job;
      assert.equal(((await (await s.http.call('GET', `/v1/scheduler/jobs/${semantic.id}`, { key: KEYS.acmeReader })).json()) as Any).job.contract, 'semantic');
      const rest = (await (await s.http.call('GET', `/v1/scheduler/jobs/${submitted.id}`, { key: KEYS.acmeReader })).json()) as Any;
      assert.equal(rest.job.run_at, submitted.run_at);
      assert.equal(rest.job.plan_reason, submitted.plan_reason);
      const got = (await unary<Any, Any>(s.clients.scheduler, 'GetJob', { job_id: submitted.id }, withKey(KEYS.acmeReader))).response;
      assert.equal(got.job.updated_at, submitted.updated_at);
      const listed = (await unary<Any, Any>(s.clients.scheduler, 'ListJobs', { state: 'scheduled', limit: 50 }, withKey(KEYS.acmeReader))).response;
      assert.ok(listed.jobs.some((j: Any) => j.id === submitted.id));

      const count = async () => ((await unary<Any, Any>(s.clients.scheduler, 'ListJobs', { limit: 1000 }, withKey(ADMIN_KEY))).response.jobs as Any[]).length;
      const before = await count();
      const preview = (await unary<Any, Any>(s.clients.scheduler, 'PreviewPlan', job(), withKey(KEYS.acmeWriter))).response;
      assert.equal(preview.tenant, 'acme');
      assert.equal(preview.plan.estimate, true);
      assert.equal(await count(), before);
    });

    test('another tenant cannot see, list or cancel the job (NOT_FOUND, as for an unknown id)', async () => {
      const { job: mine } = (await unary<Any, Any>(s.clients.scheduler, 'SubmitJob', job(), withKey(KEYS.acmeWriter))).response;
      for (const method of ['GetJob', 'CancelJob'] as const) {
        const err = await grpcFailure(() => unary(s.clients.scheduler, method, { job_id: mine.id }, withKey(KEYS.globexWriter)));
        assert.equal(err.code, grpc.status.NOT_FOUND, method);
        assert.equal(errorBodyFrom(err).error.code, 'not_found');
      }
      const theirs = (await unary<Any, Any>(s.clients.scheduler, 'ListJobs', {}, withKey(KEYS.globexWriter))).response;
      assert.ok(!(theirs.jobs ?? []).some((j: Any) => j.id === mine.id));
      const stream = await grpcFailure(async () => {
        const w = openStream<Any, Any>(s.clients.scheduler, 'WatchJob', { job_id: mine.id }, withKey(KEYS.globexWriter));
        await w.waitFor(1, 1_500);
      });
      assert.equal(stream.code, grpc.status.NOT_FOUND);
      const still = (await unary<Any, Any>(s.clients.scheduler, 'GetJob', { job_id: mine.id }, withKey(KEYS.acmeReader))).response;
      assert.equal(still.job.state, 'scheduled');
    });

    test('bad input is INVALID_ARGUMENT with the error body, and nothing is stored', async () => {
      const count = async () => ((await unary<Any, Any>(s.clients.scheduler, 'ListJobs', { limit: 1000 }, withKey(ADMIN_KEY))).response.jobs as Any[] ?? []).length;
      const before = await count();
      const cases: Any[] = [
        job({ earliest_start: iso(Date.now() + 5 * H), deadline: iso(Date.now() + 2 * H) }),
        job({ duration_seconds: 48 * 3600 }),
        job({ energy_kwh: -1 }),
        job({ zone: 'XX-NOWHERE' }),
        { job: { zone: 'DE' } },
      ];
      for (const c of cases) {
        const err = await grpcFailure(() => unary(s.clients.scheduler, 'SubmitJob', c, withKey(KEYS.acmeWriter)));
        assert.equal(err.code, grpc.status.INVALID_ARGUMENT, JSON.stringify(c));
        assert.equal(errorBodyFrom(err).error.code, 'invalid_request');
      }
      const badForecast = await grpcFailure(() =>
        unary(s.clients.scheduler, 'LoadForecast', { points: [{ zone: 'DE', start: iso(Date.now() + 2 * H), end: iso(Date.now() + H), gco2_per_kwh: 100 }] }, withKey(ADMIN_KEY)),
      );
      assert.equal(badForecast.code, grpc.status.INVALID_ARGUMENT);
      assert.equal(await count(), before);
    });

    test('LoadForecast re-plans; WatchJob streams the job until its final state', async () => {
      const start = Math.ceil(Date.now() / H) * H + H;
      const points = Array.from({ length: 6 }, (_, i) => ({ zone: 'NL', start: iso(start + i * H), end: iso(start + (i + 1) * H), gco2_per_kwh: i === 4 ? 20 : 500 }));
      const loaded = (await unary<Any, Any>(s.clients.scheduler, 'LoadForecast', { source: 'grpc-test', points }, withKey(ADMIN_KEY))).response;
      assert.equal(loaded.loaded, 6);
      assert.equal(loaded.skipped, 0);
      assert.deepEqual(loaded.zones, ['NL']);
      // A point that ended long ago is not stored, and the answer says so, as REST's does.
      const stale = (await unary<Any, Any>(s.clients.scheduler, 'LoadForecast', { source: 'grpc-test', points: [{ zone: 'NO', start: iso(start - 400 * H), end: iso(start - 399 * H), gco2_per_kwh: 30 }] }, withKey(ADMIN_KEY))).response;
      assert.deepEqual([stale.loaded, stale.skipped], [0, 1]);

      const planned = (await unary<Any, Any>(s.clients.scheduler, 'SubmitJob', job({ zone: 'NL', earliest_start: iso(start), deadline: iso(start + 6 * H) }), withKey(KEYS.acmeWriter))).response.job;
      assert.equal(planned.run_at, iso(start + 4 * H));
      assert.equal(planned.forecast_source, 'grpc-test');

      // An observe-mode job runs at its earliest start: due now, started by the next tick.
      const { job: due } = (await unary<Any, Any>(s.clients.scheduler, 'SubmitJob', job({ deadline: iso(Date.now() + 2 * H), duration_seconds: 600, mode: 'observe' }), withKey(KEYS.acmeWriter))).response;
      const watch = openStream<Any, Any>(s.clients.scheduler, 'WatchJob', { job_id: due.id }, withKey(KEYS.acmeReader));
      const [first] = await watch.waitFor(1);
      assert.equal(first!.job.state, 'scheduled');
      await s.http.app.scheduler.tick(100);
      const [, second] = await watch.waitFor(2);
      assert.equal(second!.job.state, 'running');
      const done = (await unary<Any, Any>(s.clients.scheduler, 'CompleteJob', { job_id: due.id, outcome: 'succeeded' }, withKey(KEYS.acmeWriter))).response;
      assert.equal(done.job.state, 'succeeded');
      const [, , third] = await watch.waitFor(3);
      assert.equal(third!.job.state, 'succeeded');
    });
  });
}
