/**
 * ForecastPullService on its own, with a stub scheduler and a scripted fetch:
 * periodic pulls never overlap, stop() aborts requests in flight and waits,
 * and the provider's issue time reaches loadForecast (a clock ahead of ours
 * is clamped to the pull time).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { makePrincipal } from '../../auth/principal.ts';
import type { SchedulerService } from '../scheduler-service.ts';
import { ForecastPullService, type PullOutcome } from './forecast-pull.ts';

const H = 3_600_000;
const hour0 = Math.floor(Date.now() / H) * H;
const ukBody = JSON.stringify({ data: Array.from({ length: 4 }, (_, i) => ({ from: new Date(hour0 + i * H).toISOString(), to: new Date(hour0 + (i + 1) * H).toISOString(), intensity: { forecast: 100 } })) });
const emBody = (updatedAt: string) => JSON.stringify({ forecast: [{ datetime: new Date(hour0 + H).toISOString(), carbonIntensity: 99 }], updatedAt });

function stubScheduler() {
  const loads: Array<{ body: { source: string; points: unknown[] }; issuedAt: Date | undefined }> = [];
  const scheduler = {
    loadForecast: async (_ctx: unknown, body: { source: string; points: unknown[] }, o: { issuedAt?: Date } = {}) => {
      loads.push({ body, issuedAt: o.issuedAt });
      return { loaded: body.points.length, skipped: 0, zones: [], replanned: 0 };
    },
  } as unknown as SchedulerService;
  return { scheduler, loads };
}

const config = (kind: 'uk-carbon-intensity' | 'electricity-maps') => ({
  max_delay_minutes: null,
  tenants: {},
  kinds: {},
  report_grace_minutes: 60,
  forecast_providers: [{ kind, base_url: 'http://provider.invalid', api_key_env: 'EM_KEY', zones: ['GB'], timeout_ms: 5_000 }],
  pull_interval_minutes: null,
  forecast_horizon_hours: 48,
  forecast_file: null,
  forecast_file_poll_seconds: null,
});

describe('ForecastPullService', () => {
  it('periodic pulls never overlap: a tick while one is running is skipped', async () => {
    let running = 0;
    let most = 0;
    let calls = 0;
    const fetch = (async () => {
      calls++;
      running++;
      most = Math.max(most, running);
      await sleep(120);
      running--;
      return new Response(ukBody);
    }) as typeof globalThis.fetch;
    const { scheduler, loads } = stubScheduler();
    const svc = new ForecastPullService({ scheduler, config: config('uk-carbon-intensity'), env: {}, fetch });
    const results: Array<{ outcomes: PullOutcome[] } | Error> = [];
    svc.start(30, (r) => results.push(r));
    await sleep(400);
    await svc.stop();
    assert.equal(most, 1, 'one pull at a time');
    assert.ok(calls >= 2 && calls <= 4, `calls ${calls}`);
    assert.equal(loads.length, results.length);
    for (const r of results) assert.ok(!(r instanceof Error) && r.outcomes[0]!.loaded === 4);
  });

  it('stop() aborts a request in flight and waits for the pull to settle', async () => {
    let aborted = false;
    const fetch = ((_url: URL, init: RequestInit) =>
      new Promise<Response>((_resolve, reject) => {
        init.signal!.addEventListener('abort', () => {
          aborted = true;
          reject(init.signal!.reason);
        });
      })) as typeof globalThis.fetch;
    const { scheduler } = stubScheduler();
    const svc = new ForecastPullService({ scheduler, config: config('uk-carbon-intensity'), env: {}, fetch });
    const pull = svc.pull({ principal: makePrincipal('t', ['admin']), traceId: 't' });
    await sleep(20);
    await svc.stop();
    assert.equal(aborted, true);
    const { outcomes } = await pull;
    assert.match(outcomes[0]!.error!, /pull stopped/);
    await assert.rejects(svc.pull({ principal: makePrincipal('t', ['admin']), traceId: 't' }), /shutting down/);
  });

  it("passes the provider's issue time on, clamped to the pull time", async () => {
    const now = new Date(hour0 + 10 * 60_000);
    for (const [updatedAt, expected] of [
      [new Date(hour0 - 2 * H).toISOString(), new Date(hour0 - 2 * H)],
      [new Date(hour0 + 5 * H).toISOString(), now],
      ['not a time', now],
    ] as const) {
      const { scheduler, loads } = stubScheduler();
      const fetch = (async () => new Response(emBody(updatedAt))) as unknown as typeof globalThis.fetch;
      const svc = new ForecastPullService({ scheduler, config: config('electricity-maps'), env: { EM_KEY: 'k' }, fetch, now: () => now });
      const { outcomes } = await svc.pull({ principal: makePrincipal('t', ['admin']), traceId: 't' });
      assert.equal(loads[0]!.issuedAt!.toISOString(), expected.toISOString());
      assert.equal(outcomes[0]!.issued_at, expected.toISOString());
    }
  });
});
