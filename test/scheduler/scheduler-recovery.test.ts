/**
 * Jobs nobody is finishing, on SQLite and PostgreSQL (svc processes simulated
 * as scheduler services with their own owner and clock over the server's
 * database; units executed through the server's real execute entry point):
 * - a `work_units` job whose process died half-way is taken over once its lease
 *   expires and resumed; no unit is executed twice, and the process that lost
 *   the lease neither runs another unit nor completes the job;
 * - a `work_units` job whose process died after the deadline fails as
 *   `interrupted` instead of resuming;
 * - cancelling a running `work_units` job stops its batch;
 * - an external job that never reports fails with `no_report` once its
 *   deadline plus the grace has passed (not before), and a late report is refused.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { SchedulerJob } from '../../src/svc/scheduler/job-record.ts';
import { jobWorkUnits } from '../../src/svc/scheduler/job-work-units.ts';
import { SchedulerService } from '../../src/svc/scheduler/scheduler-service.ts';
import { SchedulerJobRepository } from '../../src/svc/store/repositories/scheduler-jobs.ts';
import { engines } from '../helpers/engines.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { ledgerEvents } from '../policy/support/ledger.ts';

type Json = Record<string, any>;
const H = 3_600_000;
const LEASE_MS = 60_000;

function gate() {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  let enter!: () => void;
  // Resolves once the stalled process is inside the unit: its lease renewal before the unit has committed, so a
  // takeover's `FOR UPDATE SKIP LOCKED` on PostgreSQL cannot skip the row while that renewal holds its lock.
  const entered = new Promise<void>((r) => (enter = r));
  return { open, opened, enter, entered };
}

for (const engine of engines()) {
  describe(`scheduler recovery on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer({ engine: engine.name, env: { SVC_SCHEDULER_TICK_MS: '0' } });
    });
    after(async () => s?.close());

    const real = () => jobWorkUnits({ workUnits: s.app.workUnits, execute: () => s.app.objects.execute });
    /** A svc process over the server's database: its own owner, clock and (optionally) unit executor. */
    const processAs = (owner: string, o: { now?: () => Date; execute?: (job: SchedulerJob, id: string) => Promise<any> } = {}) => {
      const units = real();
      return new SchedulerService({
        repository: new SchedulerJobRepository(s.app.store.db),
        audit: s.app.ledger,
        shiftingDisabled: () => false,
        owner,
        leaseMs: LEASE_MS,
        workUnits: { check: units.check, execute: o.execute ?? units.execute },
        ...(o.now ? { now: o.now } : {}),
      });
    };
    const bytes = async (text: string) => {
      const r = await s.call('POST', '/v1/work-units', { key: KEYS.acmeWriter, body: { kind: 'byte_object', logical_ref: `s3://bucket/${text}`, payload: { _svc_encoding: 'base64', data: Buffer.from(text.repeat(100)).toString('base64') } } });
      assert.equal(r.status, 201, await r.clone().text());
      return ((await r.json()) as Json).work_unit_id as string;
    };
    const submit = async (body: Json) => {
      const r = await s.call('POST', '/v1/scheduler/jobs', { key: KEYS.acmeWriter, body: { deadline: new Date(Date.now() + 2 * H).toISOString(), duration_seconds: 600, zone: 'DE', mode: 'observe', ...body } });
      assert.equal(r.status, 201, await r.clone().text());
      return ((await r.json()) as Json).job as Json;
    };
    const job = async (id: string) => ((await (await s.call('GET', `/v1/scheduler/jobs/${id}`, { key: KEYS.acmeReader })).json()) as Json).job as Json;
    const unitState = async (id: string) => ((await (await s.call('GET', `/v1/work-units/${id}`, { key: KEYS.acmeReader })).json()) as Json) as Json;
    const until = async (check: () => Promise<boolean>) => {
      for (let i = 0; i < 400; i++) {
        if (await check()) return;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error('timed out');
    };
    const manifestsOf = async (ids: string[]) => {
      const written = (await ledgerEvents(s, ['manifest.written'])) as Array<Json>;
      return ids.map((id) => written.filter((e) => e.work_unit_id === id).length);
    };

    it('a work_units job whose process died half-way is taken over after its lease and resumed; no unit runs twice', async () => {
      const units = [await bytes('first'), await bytes('second'), await bytes('third')];
      const submitted = await submit({ kind: 'work_units', work_unit_ids: units });
      // Process A executes the first unit, then stalls inside the second (as if it died there).
      const stalled = gate();
      const a = processAs('A', {
        execute: async (j, id) => {
          if (id === units[1]) {
            stalled.enter();
            await stalled.opened;
          }
          return real().execute(j, id);
        },
      });
      assert.ok((await a.tick(100)).started.some((j) => j.id === submitted.id));
      await until(async () => (await unitState(units[0]!)).state === 'executed');
      await stalled.entered;

      // Before the lease expires nobody else takes it.
      assert.equal((await processAs('B').tick(100)).resumed.length, 0);
      // Process B, after the lease expired, takes the job over and resumes it.
      const b = processAs('B', { now: () => new Date(Date.now() + 2 * LEASE_MS) });
      const { resumed, started } = await b.tick(100);
      assert.deepEqual(resumed.map((j) => j.id), [submitted.id]);
      assert.equal(started.some((j) => j.id === submitted.id), false, 'a takeover is not a second start');
      await b.drained();
      const done = await job(submitted.id);
      assert.equal(done.state, 'succeeded', JSON.stringify(done.result));
      assert.deepEqual(done.result.executed.map((e: Json) => e.work_unit_id), units);
      assert.equal(done.result.executed[0].previously_executed, true);
      assert.equal(done.result.executed[0].manifest_id, (await unitState(units[0]!)).manifest_id);

      // A wakes up: it has lost the lease, so it runs nothing more and does not complete the job.
      stalled.open();
      await a.drained();
      assert.deepEqual(await manifestsOf(units), [1, 1, 1], 'each unit executed exactly once');
      const after = await job(submitted.id);
      assert.equal(after.updated_at, done.updated_at);
      const events = await ledgerEvents(s, ['scheduler.job.started', 'scheduler.job.resumed', 'scheduler.job.completed']);
      const mine = events.filter((e) => e.payload.job_id === submitted.id).map((e) => e.type);
      assert.deepEqual(mine.sort(), ['scheduler.job.completed', 'scheduler.job.resumed', 'scheduler.job.started']);
    });

    it('a work_units job whose process died after its deadline fails as interrupted instead of resuming', async () => {
      const units = [await bytes('late-1'), await bytes('late-2')];
      const submitted = await submit({ kind: 'work_units', work_unit_ids: units, deadline: new Date(Date.now() + 20 * 60_000).toISOString() });
      const stalled = gate();
      const a = processAs('A', {
        execute: async () => {
          stalled.enter();
          await stalled.opened;
          throw new Error('never');
        },
      });
      await a.tick(100);
      await stalled.entered;
      const late = processAs('C', { now: () => new Date(Date.now() + 21 * 60_000) });
      const { resumed, expired } = await late.tick(100);
      assert.equal(resumed.some((j) => j.id === submitted.id), false);
      assert.ok(expired.some((j) => j.id === submitted.id));
      const failed = await job(submitted.id);
      assert.equal(failed.state, 'failed');
      assert.equal(failed.outcome, 'interrupted');
      stalled.open();
      await a.drained();
      assert.equal((await job(submitted.id)).outcome, 'interrupted', 'the stalled process does not overwrite it');
      assert.deepEqual(await manifestsOf(units), [0, 0]);
      assert.ok((await ledgerEvents(s, ['scheduler.job.expired'])).some((e) => e.payload.job_id === submitted.id && e.payload.outcome === 'interrupted'));
    });

    it('cancelling a running work_units job stops its batch', async () => {
      const units = [await bytes('c-1'), await bytes('c-2'), await bytes('c-3')];
      const submitted = await submit({ kind: 'work_units', work_unit_ids: units });
      const held = gate();
      const a = processAs('A', {
        execute: async (j, id) => {
          if (id === units[1]) await held.opened;
          return real().execute(j, id);
        },
      });
      await a.tick(100);
      await until(async () => (await unitState(units[0]!)).state === 'executed');
      const cancel = await s.call('POST', `/v1/scheduler/jobs/${submitted.id}/cancel`, { key: KEYS.acmeWriter });
      assert.equal(cancel.status, 200, await cancel.clone().text());
      held.open();
      await a.drained();
      assert.equal((await job(submitted.id)).state, 'cancelled');
      assert.equal((await unitState(units[2]!)).state !== 'executed', true, 'units after the cancel are not run');
    });

    it('an external job that never reports fails with no_report after its deadline plus the grace; a late report is refused', async () => {
      const deadline = Date.now() + 2 * H;
      const submitted = await submit({ deadline: new Date(deadline).toISOString() });
      await processAs('A').tick(100);
      assert.equal((await job(submitted.id)).state, 'running');
      const inGrace = await processAs('A', { now: () => new Date(deadline + 30 * 60_000) }).tick(100);
      assert.equal(inGrace.expired.some((j) => j.id === submitted.id), false, 'a report may still come within the grace');
      const { expired } = await processAs('A', { now: () => new Date(deadline + 61 * 60_000) }).tick(100);
      assert.deepEqual(expired.filter((j) => j.id === submitted.id).map((j) => [j.state, j.outcome]), [['failed', 'no_report']]);
      const late = await s.call('POST', `/v1/scheduler/jobs/${submitted.id}/complete`, { key: KEYS.acmeWriter, body: { outcome: 'succeeded' } });
      assert.equal(late.status, 409);
      assert.ok((await ledgerEvents(s, ['scheduler.job.expired'])).some((e) => e.payload.job_id === submitted.id && e.payload.outcome === 'no_report'));
    });
  });
}
