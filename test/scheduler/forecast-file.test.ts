/**
 * The forecast file after start-up, through the real HTTP server, the CLI and
 * `svc serve`: a changed file is loaded again (and scheduled jobs re-planned),
 * a file created after start-up is picked up, a malformed change loads
 * nothing (the points before stay; a log line names the file and the
 * problem), POST /v1/scheduler/forecasts/reload and `svc scheduler forecast
 * --reload` re-read it on demand (400 with the spec's error body when it is
 * malformed), and SIGHUP re-reads it in a running `svc serve`.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { LOG_FILE } from '../../src/svc/logs/oplog.ts';
import { SVC_BIN, runSvc } from '../helpers/cli.ts';
import { type EngineTarget, engineTarget } from '../helpers/engines.ts';
import { ADMIN_KEY, KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

const H = 3_600_000;
const iso = (ms: number) => new Date(ms).toISOString();
const t0 = Math.ceil(Date.now() / H) * H + H;
/** Ten hours of PL forecast whose cleanest hour is `clean` hours after t0. */
const forecast = (source: string, clean: number) => ({ source, points: Array.from({ length: 10 }, (_, i) => ({ zone: 'PL', start: iso(t0 + i * H), end: iso(t0 + (i + 1) * H), gco2_per_kwh: i === clean ? 20 : 600 })) });
const job = { earliest_start: iso(t0), deadline: iso(t0 + 10 * H), duration_seconds: 3600, zone: 'PL', energy_kwh: 1 };
type Plan = { run_at: string; forecast_source: string };

/** Written as operators should: a temp file renamed over the old one, so a reader never sees half a file. */
function writeAtomically(file: string, content: string): void {
  writeFileSync(`${file}.tmp`, content);
  renameSync(`${file}.tmp`, file);
}

async function until<T>(what: string, probe: () => Promise<T | undefined> | T | undefined, ms = 8_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await probe();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

describe('scheduler forecast file after start-up', () => {
  let target: EngineTarget;
  let s: TestServer;
  let file: string;
  const preview = async () => ((await (await s.call('POST', '/v1/scheduler/plan', { key: KEYS.acmeWriter, body: job })).json()) as { plan: Plan }).plan;
  const logLines = () =>
    readFileSync(path.join(target.stateDir, LOG_FILE), 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((l) => JSON.parse(l) as Record<string, unknown>);

  before(async () => {
    target = await engineTarget('sqlite');
    mkdirSync(path.join(target.stateDir, 'scheduler'), { recursive: true });
    file = path.join(target.stateDir, 'scheduler', 'forecast.json');
    s = await startTestServer({ env: { SVC_STATE_DIR: target.stateDir, SVC_SCHEDULER_TICK_MS: '0' }, overrides: { scheduler: { forecast_file_poll_seconds: 1 } } });
  });
  after(async () => {
    await s?.close();
    await target?.cleanup();
  });

  it('a file created after start-up is loaded; a changed file is loaded again and scheduled jobs are re-planned', async () => {
    writeAtomically(file, JSON.stringify(forecast('file-v1', 5)));
    const first = await until('the created file', async () => {
      const p = await preview();
      return p.forecast_source === 'file-v1' ? p : undefined;
    });
    assert.equal(first.run_at, iso(t0 + 5 * H));
    const created = (await (await s.call('POST', '/v1/scheduler/jobs', { key: KEYS.acmeWriter, body: job })).json()) as { job: { id: string; run_at: string } };
    assert.equal(created.job.run_at, iso(t0 + 5 * H));
    await sleep(20);
    writeAtomically(file, JSON.stringify(forecast('file-v2', 7)));
    await until('the changed file', async () => ((await preview()).forecast_source === 'file-v2' ? true : undefined));
    assert.equal((await preview()).run_at, iso(t0 + 7 * H));
    const replanned = (await (await s.call('GET', `/v1/scheduler/jobs/${created.job.id}`, { key: KEYS.acmeWriter })).json()) as { job: { run_at: string } };
    assert.equal(replanned.job.run_at, iso(t0 + 7 * H), 'the scheduled job follows the new file');
    assert.ok(logLines().some((l) => l.event_type === 'scheduler.forecast.file_loaded' && l.trigger === 'change'));
  });

  it('a malformed change loads nothing: the points before stay and a log line names the file and the problem', async () => {
    // A valid point that would move the plan, then one whose end is before its start.
    const bad = forecast('file-bad', 2);
    bad.points.push({ zone: 'PL', start: iso(t0 + 12 * H), end: iso(t0 + 11 * H), gco2_per_kwh: 1 });
    writeAtomically(file, JSON.stringify(bad));
    const line = await until('the rejection', () => logLines().find((l) => l.event_type === 'scheduler.forecast.file_rejected'));
    assert.equal(line.trigger, 'change');
    assert.match(String(line.error), new RegExp(`${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}: points\\[10\\]: end must be a date-time after start`));
    const p = await preview();
    assert.deepEqual([p.forecast_source, p.run_at], ['file-v2', iso(t0 + 7 * H)], 'nothing of the bad file was loaded');
  });

  it('POST /v1/scheduler/forecasts/reload and svc scheduler forecast --reload re-read it now; a bad file is a 400', async () => {
    const bad = await s.call('POST', '/v1/scheduler/forecasts/reload', { body: {} });
    assert.equal(bad.status, 400);
    const body = (await bad.json()) as { error: { code: string; message: string; work_unit_id: null; retryable: boolean } };
    assert.equal(body.error.code, 'invalid_request');
    assert.match(body.error.message, /end must be a date-time after start/);
    assert.equal(body.error.work_unit_id, null);
    const cliBad = await runSvc(['--json', 'scheduler', 'forecast', '--reload'], { SVC_URL: s.url, SVC_API_KEY: ADMIN_KEY });
    assert.equal(cliBad.status, 1);

    // Written without a rename and without waiting for the poll: the reload reads it at once.
    writeFileSync(file, `not json ${'x'.repeat(10)}`);
    const notJson = await s.call('POST', '/v1/scheduler/forecasts/reload', { body: {} });
    assert.match(((await notJson.json()) as { error: { message: string } }).error.message, /is not valid JSON/);
    writeFileSync(file, JSON.stringify(forecast('file-v3', 3).points));
    const ok = await runSvc(['--json', 'scheduler', 'forecast', '--reload'], { SVC_URL: s.url, SVC_API_KEY: ADMIN_KEY });
    assert.equal(ok.status, 0, ok.stderr);
    const r = JSON.parse(ok.stdout) as { file: string; loaded: number; zones: string[]; issued_at: string };
    assert.deepEqual([r.file, r.loaded, r.zones], [file, 10, ['PL']]);
    const p = await preview();
    assert.deepEqual([p.forecast_source, p.run_at], ['forecast-file', iso(t0 + 3 * H)]);
    const denied = await s.call('POST', '/v1/scheduler/forecasts/reload', { key: KEYS.acmeWriter, body: {} });
    assert.equal(denied.status, 403);
    assert.equal((await runSvc(['scheduler', 'forecast', '--reload', '--pull'], { SVC_URL: s.url, SVC_API_KEY: ADMIN_KEY })).status, 2);
  });
});

describe('svc serve re-reads the forecast file on SIGHUP', () => {
  it('loads the file written after start-up when it gets SIGHUP (the file is not watched)', { timeout: 180_000 }, async () => {
    const target = await engineTarget('sqlite');
    const config = path.join(target.stateDir, 'config.yaml');
    writeFileSync(config, 'scheduler:\n  forecast_file_poll_seconds: null\n');
    const child = spawn(process.execPath, [SVC_BIN, 'serve', '--config', config, '--port', '0'], {
      env: { ...process.env, SVC_STATE_DIR: target.stateDir, SVC_LOCAL_API_KEY: ADMIN_KEY, SVC_GRPC_ENABLED: 'false', SVC_SCHEDULER_TICK_MS: '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    try {
      const url = await until('svc serve to listen', () => /svc listening on (\S+)/.exec(out)?.[1], 90_000);
      const plan = async () =>
        (await fetch(`${url}/v1/scheduler/plan`, { method: 'POST', headers: { 'x-api-key': ADMIN_KEY, 'content-type': 'application/json' }, body: JSON.stringify({ ...job, tenant: 'acme' }) }).then((r) => r.json())) as { plan: Plan };
      assert.match((await plan()).plan.forecast_source, /^embedded-estimate/);
      mkdirSync(path.join(target.stateDir, 'scheduler'), { recursive: true });
      writeFileSync(path.join(target.stateDir, 'scheduler', 'forecast.json'), JSON.stringify(forecast('file-hup', 6)));
      await sleep(300);
      assert.match((await plan()).plan.forecast_source, /^embedded-estimate/, 'not watched: nothing until the signal');
      child.kill('SIGHUP');
      const p = await until('the SIGHUP reload', async () => {
        const r = (await plan()).plan;
        return r.forecast_source === 'file-hup' ? r : undefined;
      }, 30_000);
      assert.equal(p.run_at, iso(t0 + 6 * H));
      assert.equal(child.exitCode, null, 'SIGHUP does not stop svc');
    } finally {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
      await target.cleanup();
    }
  });
});
