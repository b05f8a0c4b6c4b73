/**
 * Forecast pull adapters against local mock servers (no network): Carbon Aware
 * SDK, Electricity Maps, WattTime (login, MOER in lbs/MWh → g/kWh) and UK
 * Carbon Intensity, through the real HTTP server and the CLI's route. Each
 * provider's points are stored with its name as source and used by plans; a
 * malformed, failing or silent provider is reported for its zone while the
 * others still load; a body that stalls or is oversized is refused; keys go
 * only in the provider's own header and never in an answer or a log line; a
 * provider's own issue time is kept (an old forecast is reported stale and
 * plans fall back); WattTime logs in once per pull; the periodic pull is off
 * by default and, when configured, runs at start-up.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { LOG_FILE } from '../../src/svc/logs/oplog.ts';
import { runSvc } from '../helpers/cli.ts';
import { ADMIN_KEY, KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { type MockForecastServer, startMockForecastProviders } from '../fixtures/mock-forecast/mock-forecast-providers.ts';

const KEYS_ENV = { EM_KEY: 'em-key-secret-123', WT_CREDS: 'wt-user:wt-pass-secret-456', CAS_KEY: 'cas-key-secret-789' };
type Outcome = { provider: string; zone: string; loaded: number; error?: string };

describe('forecast provider pull adapters', () => {
  let mock: MockForecastServer;
  let s: TestServer;
  before(async () => {
    mock = await startMockForecastProviders({ em: KEYS_ENV.EM_KEY, wtUser: 'wt-user', wtPassword: 'wt-pass-secret-456', cas: KEYS_ENV.CAS_KEY });
    s = await startTestServer({
      env: { SVC_SCHEDULER_TICK_MS: '0', ...KEYS_ENV },
      overrides: {
        scheduler: {
          forecast_providers: [
            { kind: 'carbon-aware-sdk', base_url: `${mock.url}/cas`, api_key_env: 'CAS_KEY', zones: ['DE'], zone_map: { DE: 'germanywestcentral' }, timeout_ms: 3000 },
            { kind: 'electricity-maps', base_url: `${mock.url}/em`, api_key_env: 'EM_KEY', zones: ['FR'], timeout_ms: 3000 },
            { kind: 'watttime', base_url: `${mock.url}/wt`, api_key_env: 'WT_CREDS', zones: ['US-CAL-CISO'], zone_map: { 'US-CAL-CISO': 'CAISO_NORTH' }, timeout_ms: 3000 },
            { kind: 'uk-carbon-intensity', base_url: `${mock.url}/uk`, zones: ['GB'], timeout_ms: 3000 },
          ],
        },
      },
    });
  });
  after(async () => {
    await s?.close();
    await mock?.close();
  });

  const pull = async () => {
    const res = await s.call('POST', '/v1/scheduler/forecasts/pull', { key: ADMIN_KEY, body: {} });
    assert.equal(res.status, 200, await res.clone().text());
    const text = await res.text();
    for (const secret of Object.values(KEYS_ENV)) assert.equal(text.includes(secret.split(':').pop()!), false, 'no key in the answer');
    return (JSON.parse(text) as { outcomes: Outcome[] }).outcomes;
  };
  const preview = async (zone: string) =>
    ((await (await s.call('POST', '/v1/scheduler/plan', { key: KEYS.acmeWriter, body: { zone, deadline: new Date(Date.now() + 40 * 3_600_000).toISOString(), duration_seconds: 3600, energy_kwh: 1 } })).json()) as { plan: { forecast_source: string; run_at: string } }).plan;

  it('all four providers load points that plans then use; credentials go in each provider\'s own header', async () => {
    for (const k of Object.keys(mock.modes) as Array<keyof typeof mock.modes>) mock.modes[k] = 'ok';
    const outcomes = await pull();
    assert.deepEqual(outcomes.map((o) => [o.provider, o.zone, o.error]), [
      ['carbon-aware-sdk', 'DE', undefined], ['electricity-maps', 'FR', undefined], ['watttime', 'US-CAL-CISO', undefined], ['uk-carbon-intensity', 'GB', undefined],
    ]);
    for (const o of outcomes) assert.ok(o.loaded > 0, `${o.provider} loaded ${o.loaded}`);
    assert.ok(mock.requests.some((r) => r.path.includes('location=germanywestcentral') && r.headers['x-api-key'] === KEYS_ENV.CAS_KEY));
    assert.ok(mock.requests.some((r) => r.path.includes('region=CAISO_NORTH')));
    const de = await preview('DE');
    assert.equal(de.forecast_source, 'carbon-aware-sdk');
    const fr = await preview('FR');
    assert.equal(fr.forecast_source, 'electricity-maps');
    // The mock's cleanest Electricity Maps hour is hour 20 of its forecast.
    assert.equal(new Date(fr.run_at).getUTCHours(), new Date(Math.floor(Date.now() / 3_600_000) * 3_600_000 + 20 * 3_600_000).getUTCHours());
    assert.equal((await preview('GB')).forecast_source, 'uk-carbon-intensity');
  });

  it('WattTime MOER in lbs/MWh is stored as gCO2/kWh', async () => {
    await pull();
    const stored = await s.app.store.schedulerJobs.forecast('US-CAL-CISO', new Date(Date.now()).toISOString(), new Date(Date.now() + 3_600_000).toISOString());
    assert.ok(stored.length > 0);
    for (const p of stored) assert.equal(p.gco2_per_kwh, 453.592);
  });

  it('a malformed, failing or silent provider is reported for its zone; the others still load', async () => {
    mock.modes.em = 'malformed';
    mock.modes.wt = 'malformed';
    mock.modes.uk = 'hang';
    mock.modes.cas = 'http500';
    const outcomes = await pull();
    const by = Object.fromEntries(outcomes.map((o) => [o.provider, o]));
    assert.match(by['electricity-maps']!.error!, /intensity is not a number/);
    assert.match(by.watttime!.error!, /unexpected units/);
    assert.match(by['uk-carbon-intensity']!.error!, /no answer within 3000 ms/);
    assert.match(by['carbon-aware-sdk']!.error!, /HTTP 500/);
    for (const o of outcomes) assert.equal(o.loaded, 0);
    mock.modes.uk = 'ok';
    mock.modes.cas = 'malformed';
    const mixed = Object.fromEntries((await pull()).map((o) => [o.provider, o]));
    assert.ok(mixed['uk-carbon-intensity']!.loaded > 0, 'one provider failing does not stop the others');
    assert.match(mixed['carbon-aware-sdk']!.error!, /invalid time/);
  });

  it('svc scheduler forecast --pull calls the route; it needs admin:switches', async () => {
    for (const k of Object.keys(mock.modes) as Array<keyof typeof mock.modes>) mock.modes[k] = 'ok';
    const ok = await runSvc(['--json', 'scheduler', 'forecast', '--pull'], { SVC_URL: s.url, SVC_API_KEY: ADMIN_KEY });
    assert.equal(ok.status, 0, ok.stderr);
    assert.equal((JSON.parse(ok.stdout) as { outcomes: Outcome[] }).outcomes.length, 4);
    const denied = await runSvc(['--json', 'scheduler', 'forecast', '--pull'], { SVC_URL: s.url, SVC_API_KEY: KEYS.acmeWriter });
    assert.equal(denied.status, 1);
    const neither = await runSvc(['scheduler', 'forecast'], { SVC_URL: s.url, SVC_API_KEY: ADMIN_KEY });
    assert.equal(neither.status, 2);
  });
});

describe('forecast pulls: bodies that stall or are too large, issue times, periodic pulls, logs', () => {
  let mock: MockForecastServer;
  const servers: TestServer[] = [];
  const providers = (m: MockForecastServer) => [
    { kind: 'carbon-aware-sdk', base_url: `${m.url}/cas`, api_key_env: 'CAS_KEY', zones: ['DE'], timeout_ms: 3000 },
    { kind: 'electricity-maps', base_url: `${m.url}/em`, api_key_env: 'EM_KEY', zones: ['FR'], timeout_ms: 3000 },
    { kind: 'watttime', base_url: `${m.url}/wt`, api_key_env: 'WT_CREDS', zones: ['US-CAL-CISO', 'US-NY-NYIX'], timeout_ms: 3000 },
    { kind: 'uk-carbon-intensity', base_url: `${m.url}/uk`, zones: ['GB'], timeout_ms: 3000 },
  ];
  const start = async (scheduler: Record<string, unknown>) => {
    const s = await startTestServer({ env: { SVC_SCHEDULER_TICK_MS: '0', ...KEYS_ENV }, overrides: { scheduler: { forecast_providers: providers(mock), ...scheduler } } });
    servers.push(s);
    return s;
  };
  before(async () => {
    mock = await startMockForecastProviders({ em: KEYS_ENV.EM_KEY, wtUser: 'wt-user', wtPassword: 'wt-pass-secret-456', cas: KEYS_ENV.CAS_KEY });
  });
  after(async () => {
    for (const s of servers) await s.close();
    await mock?.close();
  });

  it('is off by default: configured providers are not called until a pull is asked for', async () => {
    mock.requests.length = 0;
    const s = await start({});
    await sleep(300);
    assert.equal(mock.requests.length, 0);
    assert.equal(await s.app.store.schedulerJobs.hasForecast('FR'), false);
  });

  it('with pull_interval_minutes it pulls at start-up; stale, failing and stalled providers are logged without any key', async () => {
    mock.requests.length = 0;
    Object.assign(mock.modes, { cas: 'stall-body', em: 'old', wt: 'ok', uk: 'huge' });
    const s = await start({ pull_interval_minutes: 5 });
    // Generous bounds: the start-up pull runs beside everything else a loaded CI machine does.
    for (let i = 0; i < 300 && !(await s.app.store.schedulerJobs.hasForecast('US-NY-NYIX')); i++) await sleep(100);
    assert.equal(await s.app.store.schedulerJobs.hasForecast('US-NY-NYIX'), true, 'the start-up pull loaded WattTime points');
    // WattTime: one login for both zones of the pull.
    assert.equal(mock.requests.filter((r) => r.path === '/wt/login').length, 1);
    const log = () => readFileSync(path.join(s.app.stateDir, LOG_FILE), 'utf8');
    for (let i = 0; i < 300 && !log().includes('"uk-carbon-intensity"'); i++) await sleep(100);
    const lines = log().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);
    const failed = Object.fromEntries(lines.filter((l) => l.event_type === 'scheduler.forecast.pull_failed').map((l) => [l.provider, String(l.error)]));
    assert.match(failed['carbon-aware-sdk']!, /no answer within 3000 ms/);
    assert.match(failed['uk-carbon-intensity']!, /larger than 8388608 bytes/);
    const stale = lines.find((l) => l.event_type === 'scheduler.forecast.pull_stale');
    assert.equal(stale?.provider, 'electricity-maps');
    // The stale forecast is stored with the provider's issue time: plans fall back to the earliest start.
    const plan = ((await (await s.call('POST', '/v1/scheduler/plan', { key: KEYS.acmeWriter, body: { zone: 'FR', deadline: new Date(Date.now() + 40 * 3_600_000).toISOString(), duration_seconds: 3600, energy_kwh: 1 } })).json()) as { plan: { plan_reason: string; forecast_source: string; forecast_age_s: number } }).plan;
    assert.equal(plan.forecast_source, 'electricity-maps');
    assert.equal(plan.plan_reason, 'forecast_stale');
    assert.ok(plan.forecast_age_s >= 30 * 3600 - 3600, `age ${plan.forecast_age_s}`);
    const text = log();
    for (const secret of ['em-key-secret-123', 'wt-pass-secret-456', 'cas-key-secret-789', Buffer.from('wt-user:wt-pass-secret-456').toString('base64'), 'wt-session-token']) {
      assert.equal(text.includes(secret), false, 'no key, credential or token in the log');
    }
  });

  it('an on-demand pull reports issue time, staleness, skipped points and each failure', async () => {
    Object.assign(mock.modes, { cas: 'ok', em: 'ok', wt: 'huge', uk: 'stall-body' });
    const s = await start({});
    const res = await s.call('POST', '/v1/scheduler/forecasts/pull', { key: ADMIN_KEY, body: {} });
    const by = Object.fromEntries(((await res.json()) as { outcomes: Outcome[] }).outcomes.map((o) => [`${o.provider}/${o.zone}`, o as Outcome & { issued_at?: string; stale?: boolean; skipped?: number }]));
    assert.ok(by['electricity-maps/FR']!.loaded > 0);
    assert.equal(by['electricity-maps/FR']!.stale, undefined);
    assert.equal(Date.parse(by['electricity-maps/FR']!.issued_at!) % 3_600_000, 0, "the provider's updatedAt, not the pull time");
    assert.match(by['watttime/US-CAL-CISO']!.error!, /larger than/);
    assert.match(by['uk-carbon-intensity/GB']!.error!, /no answer within 3000 ms/);
    // The same forecast again, now older than what is stored: the later issue wins, nothing is replaced.
    mock.modes.em = 'old';
    const again = ((await (await s.call('POST', '/v1/scheduler/forecasts/pull', { key: ADMIN_KEY, body: {} })).json()) as { outcomes: Array<Outcome & { skipped?: number; stale?: boolean }> }).outcomes.find((o) => o.provider === 'electricity-maps')!;
    assert.equal(again.loaded, 0);
    assert.equal(again.stale, true);
    assert.ok(again.skipped! > 0);
  });
});
