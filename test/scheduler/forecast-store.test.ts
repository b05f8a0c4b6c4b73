/**
 * How loaded forecasts combine, on SQLite and PostgreSQL: the planner reads a
 * zone's points as one non-overlapping timeline, so
 * - one load whose points overlap each other is refused (400, nothing stored);
 * - where a new forecast overlaps stored points, the one issued last wins: finer
 *   points issued later replace coarser ones (dropped whole), and a forecast
 *   issued earlier than what is stored is skipped there (reported as skipped);
 * - points that ended more than a day ago are pruned when a forecast loads;
 * - a load re-plans only the scheduled jobs whose window it meets and whose plan it changes;
 * - a forecast shorter than a job's window (a provider's horizon) plans within
 *   what it covers (`forecast_partial`), and the job moves when a newer forecast
 *   reaches further; one that does not cover the earliest run falls back to the
 *   earliest start (`forecast_incomplete`).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { makePrincipal } from '../../src/svc/auth/principal.ts';
import { engines } from '../helpers/engines.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

const H = 3_600_000;
const M = 60_000;
const iso = (ms: number) => new Date(ms).toISOString();
const t0 = Math.ceil(Date.now() / H) * H + H;
const hourly = (zone: string, hours: number, value: (i: number) => number) =>
  Array.from({ length: hours }, (_, i) => ({ zone, start: iso(t0 + i * H), end: iso(t0 + (i + 1) * H), gco2_per_kwh: value(i) }));

for (const engine of engines()) {
  describe(`forecast points on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    const system = { principal: makePrincipal('system', ['admin']), traceId: 'forecast-store-test' };
    before(async () => {
      s = await startTestServer({ engine: engine.name, env: { SVC_SCHEDULER_TICK_MS: '0' } });
    });
    after(async () => s?.close());

    const stored = (zone: string) => s.app.store.schedulerJobs.forecast(zone, iso(t0 - 72 * H), iso(t0 + 72 * H));
    const assertTimeline = async (zone: string) => {
      const points = await stored(zone);
      for (let i = 1; i < points.length; i++) assert.ok(points[i]!.start >= points[i - 1]!.end, `overlap at ${points[i]!.start}`);
      return points;
    };

    it('refuses a load whose points overlap each other; nothing is stored', async () => {
      const points = [...hourly('XA', 3, () => 100), { zone: 'XA', start: iso(t0 + 30 * M), end: iso(t0 + 90 * M), gco2_per_kwh: 5 }];
      const res = await s.call('POST', '/v1/scheduler/forecasts', { body: { points } });
      assert.equal(res.status, 400);
      const body = (await res.json()) as { error: { code: string; message: string; work_unit_id: null } };
      assert.equal(body.error.code, 'invalid_request');
      assert.match(body.error.message, /points\[3\] overlaps points\[0\] in zone XA/);
      assert.equal(await s.app.store.schedulerJobs.hasForecast('XA'), false);
      // The same start twice is an overlap too; other zones may share times.
      const dup = await s.call('POST', '/v1/scheduler/forecasts', { body: { points: [...hourly('XA', 1, () => 1), ...hourly('XA', 1, () => 2)] } });
      assert.equal(dup.status, 400);
      const ok = await s.call('POST', '/v1/scheduler/forecasts', { body: { points: [...hourly('XA', 2, () => 1), ...hourly('XB', 2, () => 2)] } });
      assert.equal(ok.status, 200, await ok.clone().text());
    });

    it('finer points issued later replace the coarse points they overlap; plans integrate one timeline', async () => {
      await s.app.scheduler.loadForecast(system, { source: 'hourly', points: hourly('XC', 6, () => 400) }, { issuedAt: new Date(Date.now() - 2 * H) });
      // Twelve 5-minute points from t0 + 1 h 30 min: they overlap hours 1 and 2, which are dropped whole.
      const fine = Array.from({ length: 12 }, (_, i) => ({ zone: 'XC', start: iso(t0 + 90 * M + i * 5 * M), end: iso(t0 + 95 * M + i * 5 * M), gco2_per_kwh: 100 }));
      const r = await s.app.scheduler.loadForecast(system, { source: 'five-minute', points: fine });
      assert.deepEqual([r.loaded, r.skipped], [12, 0]);
      const points = await assertTimeline('XC');
      assert.deepEqual(points.map((p) => [(Date.parse(p.start) - t0) / M, (Date.parse(p.end) - t0) / M, p.source]), [
        [0, 60, 'hourly'],
        ...fine.map((p) => [(Date.parse(p.start) - t0) / M, (Date.parse(p.end) - t0) / M, 'five-minute']),
        [180, 240, 'hourly'],
        [240, 300, 'hourly'],
        [300, 360, 'hourly'],
      ]);
      // A one-hour job inside the fine span is estimated at 100 g/kWh, not double-counted.
      const plan = ((await (await s.call('POST', '/v1/scheduler/plan', { key: KEYS.acmeWriter, body: { zone: 'XC', earliest_start: iso(t0 + 90 * M), deadline: iso(t0 + 150 * M), duration_seconds: 3600, energy_kwh: 1 } })).json()) as { plan: { baseline_gco2: number } }).plan;
      assert.equal(plan.baseline_gco2, 100);
    });

    it('a forecast issued before the stored one is skipped where they overlap and loaded elsewhere', async () => {
      await s.app.scheduler.loadForecast(system, { source: 'fresh', points: hourly('XD', 3, () => 300) });
      const older = hourly('XD', 5, () => 50);
      const r = await s.app.scheduler.loadForecast(system, { source: 'old-file', points: older }, { issuedAt: new Date(Date.now() - 5 * H) });
      assert.deepEqual([r.loaded, r.skipped], [2, 3]);
      const points = await assertTimeline('XD');
      assert.deepEqual(points.map((p) => [p.source, p.gco2_per_kwh]), [['fresh', 300], ['fresh', 300], ['fresh', 300], ['old-file', 50], ['old-file', 50]]);
      // The same issue time again replaces (a reloaded file, a re-pull).
      const again = await s.app.scheduler.loadForecast(system, { source: 'fresh', points: hourly('XD', 1, () => 250) });
      assert.equal(again.loaded, 1);
    });

    it('a forecast shorter than the window plans within it; a newer, longer one re-plans the job; deadlines hold', async () => {
      // 6 h forecast (cleanest hour 4) for a job that may run any hour of the next 12.
      await s.app.scheduler.loadForecast(system, { source: 'six-hours', points: hourly('XF', 6, (i) => (i === 4 ? 50 : 400)) });
      const body = { zone: 'XF', earliest_start: iso(t0), deadline: iso(t0 + 12 * H), duration_seconds: 3600, energy_kwh: 1 };
      const created = (await (await s.call('POST', '/v1/scheduler/jobs', { key: KEYS.acmeWriter, body })).json()) as { job: { id: string; run_at: string; plan_reason: string } };
      assert.deepEqual([created.job.plan_reason, created.job.run_at], ['forecast_partial', iso(t0 + 4 * H)]);
      // The next pull reaches 12 h and has a cleaner hour 9: the scheduled job moves there.
      await s.app.scheduler.loadForecast(system, { source: 'twelve-hours', points: hourly('XF', 12, (i) => (i === 9 ? 10 : i === 4 ? 50 : 400)) });
      const job = ((await (await s.call('GET', `/v1/scheduler/jobs/${created.job.id}`, { key: KEYS.acmeWriter })).json()) as { job: { run_at: string; plan_reason: string } }).job;
      assert.deepEqual([job.plan_reason, job.run_at], ['lowest_forecast_emissions', iso(t0 + 9 * H)]);
      // A forecast that starts after the earliest start: no estimate for the earliest run, so the earliest start.
      await s.app.scheduler.loadForecast(system, { source: 'late', points: hourly('XG', 6, () => 100).slice(2) });
      const late = ((await (await s.call('POST', '/v1/scheduler/plan', { key: KEYS.acmeWriter, body: { ...body, zone: 'XG' } })).json()) as { plan: { run_at: string; plan_reason: string } }).plan;
      assert.deepEqual([late.plan_reason, late.run_at], ['forecast_incomplete', iso(t0)]);
    });

    it('a load re-plans only the jobs whose window it meets and whose plan it changes', async () => {
      await s.app.scheduler.loadForecast(system, { source: 'feed', points: hourly('XH', 12, (i) => (i === 3 ? 50 : 400)) });
      const body = { zone: 'XH', earliest_start: iso(t0), deadline: iso(t0 + 8 * H), duration_seconds: 3600, energy_kwh: 1 };
      const created = (await (await s.call('POST', '/v1/scheduler/jobs', { key: KEYS.acmeWriter, body })).json()) as { job: { id: string; run_at: string } };
      assert.equal(created.job.run_at, iso(t0 + 3 * H));
      const later = hourly('XH', 12, () => 100).slice(9);
      assert.equal((await s.app.scheduler.loadForecast(system, { source: 'feed', points: later })).replanned, 0, 'outside the window');
      assert.equal((await s.app.scheduler.loadForecast(system, { source: 'feed', points: hourly('XH', 8, (i) => (i === 3 ? 50 : 400)) })).replanned, 0, 'the same plan');
      assert.equal((await s.app.scheduler.loadForecast(system, { source: 'feed', points: hourly('XH', 8, (i) => (i === 6 ? 50 : 400)) })).replanned, 1, 'a new plan');
      const job = ((await (await s.call('GET', `/v1/scheduler/jobs/${created.job.id}`, { key: KEYS.acmeWriter })).json()) as { job: { run_at: string } }).job;
      assert.equal(job.run_at, iso(t0 + 6 * H));
    });

    it('points that ended more than a day ago are pruned when a forecast loads', async () => {
      const past = Array.from({ length: 3 }, (_, i) => ({ zone: 'XE', start: iso(t0 - (50 - i) * H), end: iso(t0 - (49 - i) * H), gco2_per_kwh: 10 }));
      await s.app.scheduler.loadForecast(system, { source: 'past', points: past });
      assert.equal((await stored('XE')).length, 0, 'pruned by its own load');
      await s.app.scheduler.loadForecast(system, { source: 'recent', points: [{ zone: 'XE', start: iso(t0 - 3 * H), end: iso(t0 - 2 * H), gco2_per_kwh: 10 }] });
      assert.equal((await stored('XE')).length, 1, 'ended less than a day ago: kept');
    });
  });
}
