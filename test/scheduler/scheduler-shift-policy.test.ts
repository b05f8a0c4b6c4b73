/**
 * Bounds on shifting that come from the policy bundle (action `scheduler.shift`) and from config per job kind,
 * and the rollback switch over jobs planned before it was turned on — through the real HTTP server, on SQLite and
 * PostgreSQL:
 * - a policy denying shifts under the contract `semantic` pins such jobs to their earliest start (reason recorded,
 *   `policy.operation.denied` in the ledger), whether the contract is named or comes from the job's work units;
 * - the bundle's `default_effect: deny` does not stop shifting (only a matching policy does);
 * - an `observe_only` obligation computes the shift and runs at the earliest start;
 * - `scheduler.kinds.work_units.max_delay_minutes` bounds work_units jobs and leaves external ones alone;
 * - turning `bypass_optimisation` on moves already-shifted jobs back to their baseline start at the next tick.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { SchedulerService } from '../../src/svc/scheduler/scheduler-service.ts';
import { SchedulerJobRepository } from '../../src/svc/store/repositories/scheduler-jobs.ts';
import { engines } from '../helpers/engines.ts';
import { ADMIN_KEY, type TestServer, startTestServer } from '../helpers/server.ts';
import { ledgerEvents } from '../policy/support/ledger.ts';

const H = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const start = Math.ceil(Date.now() / H) * H + H;
// The cleanest hour is 5 hours after `start`.
const points = Array.from({ length: 10 }, (_, i) => ({ zone: 'PL', start: iso(start + i * H), end: iso(start + (i + 1) * H), gco2_per_kwh: i === 5 ? 20 : 600 }));
const window = { earliest_start: iso(start), deadline: iso(start + 10 * H), duration_seconds: 3600, zone: 'PL', energy_kwh: 1, tenant: 'initech' };

const BUNDLE = `
name: default
version: "sched-1"
default_effect: deny
policies:
  - id: pol_no_shift_semantic
    description: jobs under the semantic contract run when asked
    effect: deny
    match: { action: scheduler.shift, contract: semantic }
  - id: pol_observe_urgent
    description: urgent jobs are only observed (allowed with an obligation; a deny-default bundle drops obligations of unallowed actions)
    effect: allow
    match: { action: scheduler.shift, attributes: { priority: { gte: 8 } } }
    obligations: [observe_only]
  - id: pol_units
    effect: allow
    match: { action: { in: [hash, content_defined_chunk, dedupe, zstd] } }
`;

type Job = { id: string; run_at: string; planned_start: string; plan_reason: string; contract: string; kind: string };

for (const engine of engines()) {
  describe(`scheduler.shift policy, per-kind bounds and the switch on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer({
        engine: engine.name,
        env: { SVC_SCHEDULER_TICK_MS: '0' },
        overrides: { scheduler: { max_delay_minutes: null, tenants: {}, kinds: { work_units: { max_delay_minutes: 60 } }, forecast_file: null } },
      });
      const loaded = await s.call('POST', '/v1/scheduler/forecasts', { body: { source: 'policy-test', points } });
      assert.equal(loaded.status, 200, await loaded.clone().text());
      const pub = await s.call('POST', '/v1/policies/bundles/default/publish', { key: ADMIN_KEY, body: { document: BUNDLE } });
      assert.ok(pub.status === 201 || pub.status === 200, await pub.clone().text());
    });
    after(async () => s?.close());

    const submit = async (extra: Record<string, unknown> = {}): Promise<Job> => {
      const res = await s.call('POST', '/v1/scheduler/jobs', { body: { ...window, ...extra } });
      assert.equal(res.status, 201, await res.clone().text());
      return ((await res.json()) as { job: Job }).job;
    };
    const unit = async (contract: string): Promise<string> => {
      const r = await s.call('POST', '/v1/work-units', {
        body: { tenant: 'initech', kind: 'byte_object', logical_ref: `s3://b/${contract}-${Math.random()}`, requested_contract: contract, payload: { _svc_encoding: 'base64', data: Buffer.from('x'.repeat(64)).toString('base64') } },
      });
      assert.equal(r.status, 201, await r.clone().text());
      return ((await r.json()) as { work_unit_id: string }).work_unit_id;
    };

    it('shifts under exact_bytes although the bundle default is deny (only a matching policy stops a shift)', async () => {
      const job = await submit();
      assert.equal(job.contract, 'exact_bytes');
      assert.equal(job.run_at, iso(start + 5 * H));
      assert.equal(job.plan_reason, 'lowest_forecast_emissions');
    });

    it('a policy denying shifts for a contract pins the job to its earliest start and records the denial', async () => {
      const job = await submit({ contract: 'semantic' });
      assert.equal(job.run_at, iso(start));
      assert.equal(job.planned_start, iso(start));
      assert.equal(job.plan_reason, 'shifting_denied_by_policy');
      const denied = (await ledgerEvents(s, ['policy.operation.denied'])).filter((e) => e.payload.action === 'scheduler.shift');
      assert.equal(denied.length, 1);
      assert.deepEqual(denied[0]!.payload.matched_policy_ids, ['pol_no_shift_semantic']);
      assert.equal(denied[0]!.payload.contract, 'semantic');
      assert.equal(denied[0]!.payload.enforced, true);
      // A preview asks the same question and writes nothing.
      const preview = (await (await s.call('POST', '/v1/scheduler/plan', { body: { ...window, contract: 'semantic' } })).json()) as { plan: Job };
      assert.equal(preview.plan.plan_reason, 'shifting_denied_by_policy');
      assert.equal((await ledgerEvents(s, ['policy.operation.denied'])).length, 1);
    });

    it("a work_units job takes its units' contract: semantic units are not shifted; mixed contracts fall back to exact_bytes", async () => {
      const semantic = await submit({ kind: 'work_units', work_unit_ids: [await unit('semantic'), await unit('semantic')] });
      assert.equal(semantic.contract, 'semantic');
      assert.equal(semantic.plan_reason, 'shifting_denied_by_policy');
      assert.equal(semantic.run_at, iso(start));
      const mixed = await submit({ kind: 'work_units', work_unit_ids: [await unit('semantic'), await unit('exact_bytes')] });
      assert.equal(mixed.contract, 'exact_bytes');
      assert.notEqual(mixed.plan_reason, 'shifting_denied_by_policy');
    });

    it('scheduler.kinds bounds work_units jobs only', async () => {
      const bounded = await submit({ kind: 'work_units', work_unit_ids: [await unit('exact_bytes')] });
      assert.ok(Date.parse(bounded.run_at) <= start + 1 * H, `work_units run_at ${bounded.run_at} is past earliest + 60 min`);
      const external = await submit();
      assert.equal(external.run_at, iso(start + 5 * H), 'external jobs keep the full window');
    });

    it('an observe_only obligation computes the shift and runs at the earliest start', async () => {
      const job = await submit({ priority: 9 });
      assert.equal(job.plan_reason, 'observe_mode');
      assert.equal(job.planned_start, iso(start + 5 * H));
      assert.equal(job.run_at, iso(start));
    });

    it('bypass_optimisation turned on after planning: a shifted job due at its baseline starts at the next tick', async () => {
      const job = await submit();
      assert.equal(job.run_at, iso(start + 5 * H));
      const atBaseline = () => new Date(start + 60_000);
      const runner = (disabled: boolean) =>
        new SchedulerService({ repository: new SchedulerJobRepository(s.app.store.db), audit: s.app.ledger, shiftingDisabled: () => disabled, now: atBaseline, owner: 'test-runner' });
      // Switch off: the job is not due yet at its baseline.
      assert.equal((await runner(false).tick(10_000)).started.some((j) => j.id === job.id), false);
      // Switch on: it runs at its baseline start, and the ledger says why.
      const { started } = await runner(true).tick(10_000);
      const mine = started.find((j) => j.id === job.id);
      assert.ok(mine, 'started at the baseline start once shifting is switched off');
      assert.equal(mine.run_at, iso(start));
      assert.equal(mine.plan_reason, 'shifting_disabled');
      const replanned = (await ledgerEvents(s, ['scheduler.job.scheduled'])).filter((e) => e.payload.job_id === job.id && e.payload.replanned === true);
      assert.equal(replanned.length, 1);
      assert.equal(replanned[0]!.payload.plan_reason, 'shifting_disabled');
    });
  });
}
