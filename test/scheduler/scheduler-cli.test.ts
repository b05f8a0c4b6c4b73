/**
 * `svc scheduler …` run for real against a running server: submit, plan,
 * get, list, cancel, complete (after the runner starts the job), forecast
 * from a file; a tenant-bound key cannot see or cancel another tenant's job;
 * bad input is the server's 400 (exit 1) and local input errors exit 2.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { runSvc } from '../helpers/cli.ts';
import { ADMIN_KEY, KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

const H = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();

describe('svc scheduler (CLI against a running server)', () => {
  let s: TestServer;
  let dir: string;
  before(async () => {
    s = await startTestServer({ engine: 'sqlite', env: { SVC_SCHEDULER_TICK_MS: '0' } });
    dir = mkdtempSync(path.join(os.tmpdir(), 'svc-sched-cli-'));
  });
  after(async () => {
    await s?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const svc = (key: string, ...args: string[]) => runSvc(['--json', ...args], { SVC_URL: s.url, SVC_API_KEY: key });
  const json = (r: { stdout: string }) => JSON.parse(r.stdout) as Record<string, any>;

  it('submit, get, list and cancel; another tenant sees nothing', async () => {
    const submitted = await svc(KEYS.acmeWriter, 'scheduler', 'submit', '--deadline', iso(Date.now() + 12 * H), '--duration-seconds', '3600', '--zone', 'DE', '--energy-kwh', '4', '--meta', 'batch=nightly');
    assert.equal(submitted.status, 0, submitted.stderr);
    const job = json(submitted).job;
    assert.equal(job.tenant, 'acme');
    assert.equal(job.state, 'scheduled');
    assert.ok(Date.parse(job.run_at) + 3600_000 <= Date.parse(job.deadline), 'runs inside its window');

    const got = await svc(KEYS.acmeReader, 'scheduler', 'get', job.id);
    assert.equal(got.status, 0, got.stderr);
    assert.equal(json(got).job.id, job.id);

    const listed = await svc(KEYS.acmeReader, 'scheduler', 'list', '--state', 'scheduled', '--zone', 'DE');
    assert.ok(json(listed).jobs.some((j: { id: string }) => j.id === job.id));

    const foreign = await svc(KEYS.globexWriter, 'scheduler', 'get', job.id);
    assert.equal(foreign.status, 1);
    assert.equal(json(foreign).error.code, 'not_found');
    const foreignList = await svc(KEYS.globexWriter, 'scheduler', 'list');
    assert.ok(!json(foreignList).jobs.some((j: { id: string }) => j.id === job.id));
    const foreignCancel = await svc(KEYS.globexWriter, 'scheduler', 'cancel', job.id);
    assert.equal(foreignCancel.status, 1);
    assert.equal(json(foreignCancel).error.code, 'not_found');

    const cancelled = await svc(KEYS.acmeWriter, 'scheduler', 'cancel', job.id);
    assert.equal(cancelled.status, 0, cancelled.stderr);
    assert.equal(json(cancelled).job.state, 'cancelled');
  });

  it('plan previews without storing; forecast loads points from a file and plans use them', async () => {
    const start = Math.ceil(Date.now() / H) * H + H;
    const points = Array.from({ length: 8 }, (_, i) => ({ zone: 'FR', start: iso(start + i * H), end: iso(start + (i + 1) * H), gco2_per_kwh: i === 5 ? 10 : 400 }));
    const file = path.join(dir, 'forecast.json');
    writeFileSync(file, JSON.stringify(points));
    const loaded = await svc(ADMIN_KEY, 'scheduler', 'forecast', '--file', file, '--source', 'cli-test');
    assert.equal(loaded.status, 0, loaded.stderr);
    assert.equal(json(loaded).loaded, 8);

    const before = json(await svc(KEYS.acmeReader, 'scheduler', 'list')).jobs.length;
    const preview = await svc(KEYS.acmeWriter, 'scheduler', 'plan', '--earliest-start', iso(start), '--deadline', iso(start + 8 * H), '--duration-seconds', '3600', '--zone', 'FR', '--energy-kwh', '1');
    assert.equal(preview.status, 0, preview.stderr);
    assert.equal(json(preview).plan.run_at, iso(start + 5 * H), 'the cleanest hour of the loaded forecast');
    assert.equal(json(preview).plan.forecast_source, 'cli-test');
    assert.equal(json(await svc(KEYS.acmeReader, 'scheduler', 'list')).jobs.length, before, 'a preview stores nothing');
  });

  it('complete reports the outcome of a started job', async () => {
    const submitted = json(await svc(KEYS.acmeWriter, 'scheduler', 'submit', '--deadline', iso(Date.now() + 3 * H), '--duration-seconds', '600', '--zone', 'DE', '--mode', 'observe'));
    await s.app.scheduler.tick(100);
    const done = await svc(KEYS.acmeWriter, 'scheduler', 'complete', submitted.job.id, '--outcome', 'succeeded');
    assert.equal(done.status, 0, done.stderr);
    assert.equal(json(done).job.state, 'succeeded');
  });

  it('bad input: the server refuses with 400 (exit 1); local input errors exit 2', async () => {
    const backwards = await svc(KEYS.acmeWriter, 'scheduler', 'submit', '--earliest-start', iso(Date.now() + 5 * H), '--deadline', iso(Date.now() + 2 * H), '--duration-seconds', '60', '--zone', 'DE');
    assert.equal(backwards.status, 1);
    assert.equal(json(backwards).error.code, 'invalid_request');
    const unknownZone = await svc(KEYS.acmeWriter, 'scheduler', 'submit', '--deadline', iso(Date.now() + 5 * H), '--duration-seconds', '60', '--zone', 'XX-NOWHERE');
    assert.equal(unknownZone.status, 1);
    assert.match(json(unknownZone).error.message, /unknown zone/);
    const notANumber = await svc(KEYS.acmeWriter, 'scheduler', 'submit', '--deadline', iso(Date.now() + 5 * H), '--duration-seconds', 'soon', '--zone', 'DE');
    assert.equal(notANumber.status, 2);
    const missingFile = await svc(ADMIN_KEY, 'scheduler', 'forecast', '--file', path.join(dir, 'nope.json'));
    assert.equal(missingFile.status, 2);
    assert.match(missingFile.stderr, /cannot read forecast file/);
    const badOutcome = await svc(KEYS.acmeWriter, 'scheduler', 'complete', 'job_x', '--outcome', 'maybe');
    assert.equal(badOutcome.status, 2);
  });
});
