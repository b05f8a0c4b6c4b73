/** The planner is exact on piecewise-constant forecasts, keeps ties at the earliest start and never leaves the window. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { forecastDecision, meanIntensity, plan } from '../../src/svc/scheduler/planner.ts';
import { DAILY_PROFILE, annualIntensity, embeddedForecast } from '../../src/svc/scheduler/embedded-forecast.ts';

const H = 3_600_000;
const hourly = (values: number[]) => values.map((g, i) => ({ start: i * H, end: (i + 1) * H, gco2PerKwh: g }));

describe('scheduler planner', () => {
  it('picks the cleanest window, integrating across segment boundaries', () => {
    const segments = hourly([500, 400, 100, 100, 300, 600]);
    const out = plan({ earliest: 0, deadline: 6 * H, durationMs: 2 * H, energyKwh: 2, segments });
    assert.equal(out.start, 2 * H);
    assert.equal(out.gco2, 200);
    assert.equal(out.baselineGco2, 900);
  });

  it('matches a brute-force search at minute resolution', () => {
    let seed = 7;
    const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
    for (let trial = 0; trial < 30; trial++) {
      const segments = hourly(Array.from({ length: 24 }, () => Math.round(100 + rnd() * 400)));
      const earliest = Math.floor(rnd() * 6 * 60) * 60_000;
      const durationMs = (30 + Math.floor(rnd() * 300)) * 60_000;
      const deadline = earliest + durationMs + Math.floor(rnd() * 12 * 60) * 60_000;
      const out = plan({ earliest, deadline, durationMs, energyKwh: 1, segments });
      let best = Infinity;
      for (let s = earliest; s + durationMs <= deadline; s += 60_000) best = Math.min(best, meanIntensity(segments, s, durationMs)!);
      assert.ok(out.gco2! <= best + 1e-6, `trial ${trial}: ${out.gco2} > ${best}`);
      assert.ok(out.start >= earliest && out.start + durationMs <= deadline, 'inside the window');
    }
  });

  it('keeps ties at the earliest start', () => {
    const out = plan({ earliest: 0, deadline: 5 * H, durationMs: H, energyKwh: 1, segments: hourly([200, 200, 200, 200, 200]) });
    assert.equal(out.start, 0);
  });

  it('reports an uncovered forecast', () => {
    const out = plan({ earliest: 0, deadline: 5 * H, durationMs: H, energyKwh: 1, segments: hourly([200, 100]) });
    assert.equal(out.covered, false);
  });

  it('a forecast shorter than the window: the best covered start (forecast_partial); the earliest run uncovered: the earliest', () => {
    const partial = plan({ earliest: 0, deadline: 8 * H, durationMs: 2 * H, energyKwh: 1, segments: hourly([300, 300, 100, 100, 300]) });
    assert.deepEqual(forecastDecision(partial, 0), { start: 2 * H, gco2: 100, reason: 'forecast_partial' });
    // The 4-hour job fits the 5 covered hours only from 0 or 1 h: never a start whose run leaves the forecast.
    const long = plan({ earliest: 0, deadline: 12 * H, durationMs: 4 * H, energyKwh: 1, segments: hourly([300, 300, 100, 100, 100]) });
    assert.deepEqual(forecastDecision(long, 0), { start: H, gco2: 150, reason: 'forecast_partial' });
    const late = plan({ earliest: 0, deadline: 8 * H, durationMs: H, energyKwh: 1, segments: hourly([300, 300, 100]).map((s) => ({ ...s, start: s.start + H, end: s.end + H })) });
    assert.deepEqual(forecastDecision(late, 0), { start: 0, gco2: null, reason: 'forecast_incomplete' });
    const full = plan({ earliest: 0, deadline: 3 * H, durationMs: H, energyKwh: 1, segments: hourly([300, 100, 300]) });
    assert.deepEqual(forecastDecision(full, 0), { start: H, gco2: 100, reason: 'lowest_forecast_emissions' });
  });

  it('embedded estimate: the daily profile keeps the annual average; unknown zones have none', () => {
    const mean = DAILY_PROFILE.reduce((a, b) => a + b, 0) / 24;
    assert.ok(Math.abs(mean - 1) < 1e-9);
    const de = annualIntensity('DE');
    assert.ok(de !== undefined && de > 0);
    const pts = embeddedForecast('DE', new Date('2026-01-01T00:00:00Z'), new Date('2026-01-02T00:00:00Z'));
    assert.equal(pts.length, 24);
    assert.ok(Math.abs(pts.reduce((a, p) => a + p.gco2_per_kwh, 0) / 24 - de) < 0.05);
    assert.equal(annualIntensity('NOT-A-ZONE'), undefined);
  });
});
