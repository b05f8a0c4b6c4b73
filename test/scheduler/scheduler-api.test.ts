/**
 * The scheduler through the real HTTP server on SQLite and PostgreSQL:
 * create/get/list, tenant isolation, bad input (400, nothing stored),
 * deadline-safe shifting, stale-forecast fallback, re-plan, runner claims
 * (restart survival, due-while-down → missed), and exactly-once claiming by
 * two processes on one database.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makePrincipal } from '../../src/svc/auth/principal.ts';
import { SchedulerService } from '../../src/svc/scheduler/scheduler-service.ts';
import { openDb } from '../../src/svc/store/open-db.ts';
import { SchedulerJobRepository } from '../../src/svc/store/repositories/scheduler-jobs.ts';
import { engines } from '../helpers/engines.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { ledgerEvents } from '../policy/support/ledger.ts';

const H = 3_600_000;
const noAudit = { append: async () => undefined };
const WRITER = { principal: makePrincipal('acme-writer', ['writer'], 'acme') };

function hoursFromNow(h: number): string {
  return new Date(Date.now() + h * H).toISOString();
}

for (const engine of engines()) {
  describe(`scheduler API on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer({ engine: engine.name, env: { SVC_SCHEDULER_TICK_MS: '0' } });
    });
    after(async () => {
      await s?.close();
    });

    async function submit(body: Record<string, unknown>, key: string = KEYS.acmeWriter) {
      return s.call('POST', '/v1/scheduler/jobs', { key, body: { deadline: hoursFromNow(12), duration_seconds: 3600, energy_kwh: 10, zone: 'DE', ...body } });
    }

    it('creates a job planned inside its window, readable and listable by its tenant only', async () => {
      const res = await submit({ metadata: { batch: 'nightly' } });
      assert.equal(res.status, 201, await res.clone().text());
      const { job, estimate } = (await res.json()) as { job: Record<string, unknown>; estimate: boolean };
      assert.equal(estimate, true);
      assert.equal(job.tenant, 'acme');
      assert.equal(job.state, 'scheduled');
      assert.match(String(job.forecast_source), /^embedded-estimate:/);
      const runAt = Date.parse(String(job.run_at));
      assert.ok(runAt >= Date.parse(String(job.earliest_start)));
      assert.ok(runAt + 3600_000 <= Date.parse(String(job.deadline)), 'never past deadline − duration');
      assert.ok(Number(job.planned_gco2) <= Number(job.baseline_gco2));

      assert.equal((await s.call('GET', `/v1/scheduler/jobs/${job.id}`, { key: KEYS.acmeReader })).status, 200);
      // Another tenant neither sees nor cancels it.
      assert.equal((await s.call('GET', `/v1/scheduler/jobs/${job.id}`, { key: KEYS.globexWriter })).status, 404);
      assert.equal((await s.call('POST', `/v1/scheduler/jobs/${job.id}/cancel`, { key: KEYS.globexWriter })).status, 404);
      const globexList = (await (await s.call('GET', '/v1/scheduler/jobs', { key: KEYS.globexWriter })).json()) as { jobs: unknown[] };
      assert.equal(globexList.jobs.length, 0);
      assert.equal((await s.call('GET', '/v1/scheduler/jobs?tenant=acme', { key: KEYS.globexWriter })).status, 403);

      const events = await ledgerEvents(s, ['scheduler.job.created', 'scheduler.job.scheduled']);
      assert.ok(events.some((e) => e.type === 'scheduler.job.created' && e.payload.job_id === job.id));
    });

    it('every job names a traceable work unit: its submission as an operation unit, or the caller\'s own (checked)', async () => {
      const res = await submit({});
      assert.equal(res.status, 201);
      const body = (await res.json()) as { job: { id: string; work_unit_id: string }; work_unit_id: string };
      assert.match(body.job.work_unit_id, /^wu_/);
      assert.equal(body.work_unit_id, body.job.work_unit_id);
      assert.equal(res.headers.get('x-svc-work-unit-id'), body.job.work_unit_id);
      const unit = (await (await s.call('GET', `/v1/work-units/${body.job.work_unit_id}`, { key: KEYS.acmeReader })).json()) as Record<string, any>;
      assert.equal(unit.kind, 'scheduler_job_submit');
      assert.equal(unit.state, 'executed');
      assert.equal(unit.tenant, 'acme');
      assert.equal(unit.metadata.job_id, body.job.id);
      const cancel = await s.call('POST', `/v1/scheduler/jobs/${body.job.id}/cancel`, { key: KEYS.acmeWriter });
      assert.equal(cancel.headers.get('x-svc-work-unit-id'), body.job.work_unit_id);
      const events = (await ledgerEvents(s, ['scheduler.job.created', 'scheduler.job.scheduled', 'scheduler.job.cancelled'])).filter((e) => e.payload.job_id === body.job.id) as Array<Record<string, any>>;
      assert.equal(events.length, 3);
      for (const e of events) assert.equal(e.work_unit_id, body.job.work_unit_id, e.type);

      // A job of an existing work unit names that unit, and no submission unit is recorded for it.
      const own = (await (await s.call('POST', '/v1/work-units', { key: KEYS.acmeWriter, body: { kind: 'byte_object', logical_ref: 's3://b/own', payload: { _svc_encoding: 'base64', data: 'AAAA' } } })).json()) as { work_unit_id: string };
      const linked = (await (await submit({ work_unit_id: own.work_unit_id })).json()) as { job: { id: string; work_unit_id: string } };
      assert.equal(linked.job.work_unit_id, own.work_unit_id);
      // Another tenant's unit is not found, and nothing is stored.
      const theirs = (await (await s.call('POST', '/v1/work-units', { key: KEYS.globexWriter, body: { kind: 'byte_object', logical_ref: 's3://b/theirs', payload: { _svc_encoding: 'base64', data: 'AAAA' } } })).json()) as { work_unit_id: string };
      const count = async () => ((await (await s.call('GET', '/v1/scheduler/jobs?limit=1000')).json()) as { jobs: unknown[] }).jobs.length;
      const before = await count();
      assert.equal((await submit({ work_unit_id: theirs.work_unit_id })).status, 404);
      assert.equal(await count(), before);
    });

    it('refuses bad input with the spec error body and stores nothing', async () => {
      const before = (await (await s.call('GET', '/v1/scheduler/jobs?limit=1000')).json()) as { jobs: unknown[] };
      const bad: Array<Record<string, unknown>> = [
        { earliest_start: hoursFromNow(5), deadline: hoursFromNow(4) },
        { earliest_start: hoursFromNow(1), deadline: hoursFromNow(2), duration_seconds: 7200 },
        { energy_kwh: -1 },
        { zone: 'NOT-A-ZONE' },
        { deadline: 'tomorrow' },
      ];
      for (const b of bad) {
        const res = await submit(b);
        assert.equal(res.status, 400, JSON.stringify(b));
        const body = (await res.json()) as { error: { code: string; message: string } };
        assert.equal(body.error.code, 'invalid_request');
      }
      const malformed = await s.call('POST', '/v1/scheduler/forecasts', { body: { points: [{ zone: 'DE', start: hoursFromNow(2), end: hoursFromNow(1), gco2_per_kwh: 100 }] } });
      assert.equal(malformed.status, 400);
      const after = (await (await s.call('GET', '/v1/scheduler/jobs?limit=1000')).json()) as { jobs: unknown[] };
      assert.equal(after.jobs.length, before.jobs.length);
    });

    it('plan preview stores nothing; a loaded forecast drives and re-plans the shift; a stale one falls back with the reason', async () => {
      const start = Math.ceil(Date.now() / H) * H + H;
      const points = Array.from({ length: 10 }, (_, i) => ({ zone: 'FR', start: new Date(start + i * H).toISOString(), end: new Date(start + (i + 1) * H).toISOString(), gco2_per_kwh: i === 6 ? 10 : 300 }));
      const load = await s.call('POST', '/v1/scheduler/forecasts', { body: { source: 'test-feed', points } });
      assert.equal(load.status, 200, await load.clone().text());
      const req = { zone: 'FR', earliest_start: new Date(start).toISOString(), deadline: new Date(start + 10 * H).toISOString() };
      const preview = (await (await s.call('POST', '/v1/scheduler/plan', { key: KEYS.acmeWriter, body: { duration_seconds: 3600, energy_kwh: 1, ...req } })).json()) as { plan: Record<string, unknown> };
      assert.equal(preview.plan.run_at, new Date(start + 6 * H).toISOString());
      assert.equal(preview.plan.plan_reason, 'lowest_forecast_emissions');
      assert.equal(preview.plan.forecast_source, 'test-feed');
      const created = (await (await submit(req)).json()) as { job: { id: string; run_at: string; shift_minutes: number } };
      assert.equal(created.job.shift_minutes, 360);
      // A newer forecast makes hour 2 the cleanest: the scheduled job is re-planned.
      const newer = points.map((p, i) => ({ ...p, gco2_per_kwh: i === 2 ? 5 : 300 }));
      const reload = (await (await s.call('POST', '/v1/scheduler/forecasts', { body: { source: 'test-feed', points: newer } })).json()) as { replanned: number };
      assert.ok(reload.replanned >= 1);
      const replanned = (await (await s.call('GET', `/v1/scheduler/jobs/${created.job.id}`)).json()) as { job: { run_at: string } };
      assert.equal(replanned.job.run_at, new Date(start + 2 * H).toISOString());

      // A forecast loaded now and read 30 hours later is stale: the job keeps its earliest start and the reason says why.
      const t0 = Math.ceil(Date.now() / H) * H + 30 * H;
      const future = Array.from({ length: 10 }, (_, i) => ({ zone: 'ES', start: new Date(t0 + i * H).toISOString(), end: new Date(t0 + (i + 1) * H).toISOString(), gco2_per_kwh: i === 5 ? 1 : 400 }));
      assert.equal((await s.call('POST', '/v1/scheduler/forecasts', { body: { points: future } })).status, 200);
      const later = new SchedulerService({ repository: new SchedulerJobRepository(s.app.store.db), audit: noAudit, shiftingDisabled: () => false, now: () => new Date(t0) });
      const stale = await later.preview(WRITER, { zone: 'ES', deadline: new Date(t0 + 10 * H).toISOString(), duration_seconds: 3600, energy_kwh: 1 });
      assert.equal(stale.plan.plan_reason, 'forecast_stale');
      assert.equal(stale.plan.run_at, new Date(t0).toISOString());
    });

    it('runner: a due job is claimed once and started, completes on report; one whose deadline passed while down is missed', async () => {
      // Observe mode: it runs at its earliest start whatever the (time-of-day shaped) embedded forecast says,
      // so it is due at the restart below at any hour the test runs.
      const due = (await (await submit({ deadline: hoursFromNow(3), duration_seconds: 3600, mode: 'observe' })).json()) as { job: { id: string } };
      const doomed = (await (await submit({ deadline: hoursFromNow(2), duration_seconds: 3600 })).json()) as { job: { id: string } };
      // "Restart" 90 minutes later: a fresh service over the same database (all state is in it).
      const restarted = new SchedulerService({ repository: new SchedulerJobRepository(s.app.store.db), audit: s.app.ledger, shiftingDisabled: () => false, now: () => new Date(Date.now() + 1.5 * H) });
      const { started, missed } = await restarted.tick(10_000);
      assert.ok(missed.some((j) => j.id === doomed.job.id), 'latest start passed → missed');
      assert.ok(started.some((j) => j.id === due.job.id), 'still meetable → started at start-up');
      const again = await restarted.tick(10_000);
      assert.equal(again.started.filter((j) => j.id === due.job.id).length, 0, 'never started twice');
      const done = await s.call('POST', `/v1/scheduler/jobs/${due.job.id}/complete`, { key: KEYS.acmeWriter, body: { outcome: 'succeeded' } });
      assert.equal(done.status, 200, await done.clone().text());
      assert.equal(((await done.json()) as { job: { state: string } }).job.state, 'succeeded');
      const events = await ledgerEvents(s, ['scheduler.job.missed', 'scheduler.job.started', 'scheduler.job.completed']);
      assert.ok(events.some((e) => e.type === 'scheduler.job.missed' && e.payload.job_id === doomed.job.id));
      assert.ok(events.some((e) => e.type === 'scheduler.job.completed' && e.payload.job_id === due.job.id));
    });

    it('two processes claiming 1,000 due jobs: each runs exactly once', { skip: engine.name === 'sqlite' ? 'SQLite serves one process' : false }, async () => {
      const dbA = openDb({ databaseUrl: s.target.databaseUrl, stateDir: s.target.stateDir, pgSchema: s.target.pgSchema } as never);
      const dbB = openDb({ databaseUrl: s.target.databaseUrl, stateDir: s.target.stateDir, pgSchema: s.target.pgSchema } as never);
      try {
        const svcA = new SchedulerService({ repository: new SchedulerJobRepository(dbA), audit: noAudit, shiftingDisabled: () => true, owner: 'A' });
        const ids = new Set<string>();
        for (let i = 0; i < 1000; i++) {
          const job = await svcA.create(WRITER, { deadline: hoursFromNow(5), duration_seconds: 60, energy_kwh: 1, zone: 'PL', metadata: { n: String(i) } });
          ids.add(job.id);
        }
        const clock = () => new Date(Date.now() + 60_000);
        const a = new SchedulerService({ repository: new SchedulerJobRepository(dbA), audit: noAudit, shiftingDisabled: () => true, owner: 'A', now: clock });
        const b = new SchedulerService({ repository: new SchedulerJobRepository(dbB), audit: noAudit, shiftingDisabled: () => true, owner: 'B', now: clock });
        const seen: string[] = [];
        const drain = async (svc: SchedulerService) => {
          for (;;) {
            const { started } = await svc.tick(50);
            if (started.length === 0) return;
            seen.push(...started.map((j) => j.id).filter((id) => ids.has(id)));
          }
        };
        await Promise.all([drain(a), drain(b)]);
        assert.equal(seen.length, 1000);
        assert.equal(new Set(seen).size, 1000);
      } finally {
        await dbA.close();
        await dbB.close();
      }
    });
  });
}
