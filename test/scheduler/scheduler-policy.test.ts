/**
 * Policy on shifting (config `scheduler`), observe mode, the rollback switch,
 * and the forecast file, through the real HTTP server:
 * - a maximum delay bounds the chosen start (globally and per tenant);
 * - a tenant with `shifting: false` always runs at its earliest start;
 * - observe mode records the computed shift but runs at the earliest start;
 * - the bypass_optimisation switch disables shifting for every job;
 * - <state_dir>/scheduler/forecast.json is loaded at start-up with its mtime as issue time; a malformed one stops
 *   the start with a configuration error naming the file.
 */
import assert from 'node:assert/strict';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createSvcApp } from '../../src/svc/app.ts';
import { loadConfig } from '../../src/svc/config/load.ts';
import { SvcError } from '../../src/svc/errors.ts';
import { engineTarget } from '../helpers/engines.ts';
import { ADMIN_KEY, KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

const H = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const start = Math.ceil(Date.now() / H) * H + H;
// A forecast whose cleanest hour is 5 hours after `start`.
const points = Array.from({ length: 10 }, (_, i) => ({ zone: 'PL', start: iso(start + i * H), end: iso(start + (i + 1) * H), gco2_per_kwh: i === 5 ? 20 : 600 }));
const body = (extra: Record<string, unknown> = {}) => ({ earliest_start: iso(start), deadline: iso(start + 10 * H), duration_seconds: 3600, zone: 'PL', energy_kwh: 1, ...extra });

type Job = { job: { run_at: string; planned_start: string; plan_reason: string; forecast_source: string; forecast_age_s: number | null } };

describe('scheduler policy bounds, observe mode and the rollback switch', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({
      env: { SVC_SCHEDULER_TICK_MS: '0' },
      overrides: { scheduler: { max_delay_minutes: null, tenants: { acme: { max_delay_minutes: 120 }, globex: { shifting: false } }, forecast_file: null } },
    });
    const loaded = await s.call('POST', '/v1/scheduler/forecasts', { body: { source: 'policy-test', points } });
    assert.equal(loaded.status, 200, await loaded.clone().text());
  });
  after(async () => s?.close());

  const submit = async (key: string, extra: Record<string, unknown> = {}) => {
    const res = await s.call('POST', '/v1/scheduler/jobs', { key, body: body(extra) });
    assert.equal(res.status, 201, await res.clone().text());
    return (await res.json()) as Job;
  };

  it('without a bound the job moves to the cleanest hour (admin, no tenant entry)', async () => {
    const r = await submit(ADMIN_KEY, { tenant: 'initech' });
    assert.equal(r.job.run_at, iso(start + 5 * H));
    assert.equal(r.job.plan_reason, 'lowest_forecast_emissions');
  });

  it("a tenant's max delay bounds the chosen start", async () => {
    const r = await submit(KEYS.acmeWriter);
    assert.ok(Date.parse(r.job.run_at) <= start + 2 * H, `run_at ${r.job.run_at} is past earliest + 120 min`);
    assert.equal(r.job.plan_reason, 'lowest_forecast_emissions');
  });

  it('a tenant with shifting off runs at its earliest start, and the reason says why', async () => {
    const r = await submit(KEYS.globexWriter);
    assert.equal(r.job.run_at, iso(start));
    assert.equal(r.job.plan_reason, 'shifting_denied_by_policy');
  });

  it('observe mode records the computed shift and runs at the earliest start', async () => {
    const r = await submit(ADMIN_KEY, { tenant: 'initech', mode: 'observe' });
    assert.equal(r.job.run_at, iso(start));
    assert.equal(r.job.planned_start, iso(start + 5 * H));
    assert.equal(r.job.plan_reason, 'observe_mode');
  });

  it('/metrics counts jobs by state from the database', async () => {
    const text = await (await s.call('GET', '/metrics')).text();
    const scheduled = /^svc_scheduler_jobs\{state="scheduled"\} (\d+)$/m.exec(text);
    assert.ok(scheduled, 'svc_scheduler_jobs{state="scheduled"} exported');
    const listed = ((await (await s.call('GET', '/v1/scheduler/jobs?state=scheduled&limit=1000')).json()) as { jobs: unknown[] }).jobs.length;
    assert.equal(Number(scheduled[1]), listed);
    assert.match(text, /^svc_scheduler_jobs\{state="missed"\} 0$/m);
  });

  it('the bypass_optimisation switch disables shifting for every job', async () => {
    const flip = async (enabled: boolean) => assert.equal((await s.call('POST', '/v1/admin/switches', { body: { switch: 'bypass_optimisation', enabled } })).status, 200);
    await flip(true);
    try {
      const r = await submit(ADMIN_KEY, { tenant: 'initech' });
      assert.equal(r.job.run_at, iso(start));
      assert.equal(r.job.plan_reason, 'shifting_disabled');
    } finally {
      await flip(false);
    }
  });
});

describe('scheduler forecast file', () => {
  it('<state_dir>/scheduler/forecast.json is loaded at start-up; its age is the file age', async () => {
    const target = await engineTarget('sqlite');
    try {
      mkdirSync(path.join(target.stateDir, 'scheduler'), { recursive: true });
      const file = path.join(target.stateDir, 'scheduler', 'forecast.json');
      writeFileSync(file, JSON.stringify({ source: 'file-feed', points }));
      const issued = new Date(Date.now() - 2 * H);
      utimesSync(file, issued, issued);
      const s = await startTestServer({ env: { SVC_STATE_DIR: target.stateDir, SVC_SCHEDULER_TICK_MS: '0' } });
      try {
        const r = (await (await s.call('POST', '/v1/scheduler/plan', { key: KEYS.acmeWriter, body: body() })).json()) as { plan: Job['job'] };
        assert.equal(r.plan.forecast_source, 'file-feed');
        assert.equal(r.plan.run_at, iso(start + 5 * H));
        assert.ok(r.plan.forecast_age_s !== null && r.plan.forecast_age_s >= 2 * 3600 - 5, `age ${r.plan.forecast_age_s}`);
      } finally {
        await s.close();
      }
    } finally {
      await target.cleanup();
    }
  });

  it('a malformed forecast file stops the start with a configuration error naming the file; nothing is loaded', async () => {
    const target = await engineTarget('sqlite');
    try {
      mkdirSync(path.join(target.stateDir, 'scheduler'), { recursive: true });
      const file = path.join(target.stateDir, 'scheduler', 'forecast.json');
      const env = { SVC_STATE_DIR: target.stateDir, SVC_LOCAL_API_KEY: ADMIN_KEY, SVC_SCHEDULER_TICK_MS: '0', SVC_GRPC_ENABLED: 'false' };
      for (const [content, pattern] of [
        ['{ not json', /not valid JSON/],
        [JSON.stringify({ points: [{ ...points[0], end: points[0]!.start }] }), /end must be a date-time after start/],
        [JSON.stringify({ points: [{ ...points[0], gco2_per_kwh: -5 }] }), /gco2_per_kwh/],
      ] as const) {
        writeFileSync(file, content);
        await assert.rejects(createSvcApp(loadConfig({ env, overrides: { 'server.port': 0 } }), { env }), (err: unknown) => {
          assert.ok(err instanceof SvcError && err.code === 'invalid_request', String(err));
          assert.match(err.message, new RegExp(file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')));
          assert.match(err.message, pattern);
          return true;
        });
      }
    } finally {
      await target.cleanup();
    }
  });
});
