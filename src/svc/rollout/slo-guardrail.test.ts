import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuditRecorder } from '../../../test/policy/support/audit-recorder.ts';
import { alertingGuardrailListener } from './guardrail-alerts.ts';
import { DEFAULT_GUARDRAIL_CONFIG, type GuardrailState, SloGuardrail } from './slo-guardrail.ts';

const config = { ...DEFAULT_GUARDRAIL_CONFIG, window_seconds: 10, latency_p95_ms: 100, max_failure_rate: 0.1, min_samples: 20, recovery_seconds: 30, check_interval_ms: 0 };

function guardrail() {
  let now = 1_000_000;
  const events: string[] = [];
  const g = new SloGuardrail(config, {
    now: () => now,
    listener: { tripped: (s: GuardrailState) => events.push(`tripped:${s.reason}`), recovered: () => events.push('recovered') },
  });
  return { g, events, advance: (ms: number) => (now += ms) };
}

describe('SloGuardrail', () => {
  it('stays closed while latency and failures are within the SLO', () => {
    const { g, events } = guardrail();
    for (let i = 0; i < 100; i++) g.record(50, true);
    assert.equal(g.tripped, false);
    assert.deepEqual(events, []);
  });

  it('trips when p95 latency goes over the SLO', () => {
    const { g, events } = guardrail();
    for (let i = 0; i < 90; i++) g.record(50, true);
    for (let i = 0; i < 10; i++) g.record(500, true);
    assert.equal(g.tripped, true);
    assert.match(events[0] ?? '', /p95 latency 500\.0 ms over the SLO of 100 ms/);
    assert.equal(g.state().window.samples, 100);
  });

  it('trips when the failure rate goes over the SLO', () => {
    const { g } = guardrail();
    for (let i = 0; i < 30; i++) g.record(10, i % 5 !== 0);
    assert.equal(g.tripped, true);
    assert.match(g.state().reason ?? '', /failure rate/);
  });

  it('does not trip on fewer samples than min_samples', () => {
    const { g } = guardrail();
    for (let i = 0; i < 19; i++) g.record(1000, false);
    assert.equal(g.tripped, false);
  });

  it('forgets samples older than the window', () => {
    const { g, advance } = guardrail();
    for (let i = 0; i < 15; i++) g.record(1000, true);
    advance(11_000);
    for (let i = 0; i < 15; i++) g.record(1000, true);
    assert.equal(g.tripped, false, 'only 15 samples are inside the window');
  });

  it('recovers only after the window stays healthy for recovery_seconds', () => {
    const { g, events, advance } = guardrail();
    for (let i = 0; i < 30; i++) g.record(500, true);
    assert.equal(g.tripped, true);
    advance(11_000);
    for (let i = 0; i < 30; i++) g.record(90, true);
    assert.equal(g.tripped, true, '90 ms is under the SLO but not under 80 % of it');
    for (let s = 0; s < 40; s++) {
      advance(1000);
      g.record(20, true);
    }
    assert.equal(g.tripped, true, 'the window still holds the 90 ms samples for the first seconds');
    for (let s = 0; s < 35; s++) {
      advance(1000);
      g.record(20, true);
    }
    assert.equal(g.tripped, false);
    assert.deepEqual(events.at(-1), 'recovered');
  });

  it('does nothing when disabled', () => {
    const g = new SloGuardrail({ ...config, enabled: false });
    for (let i = 0; i < 100; i++) g.record(10_000, false);
    assert.equal(g.tripped, false);
  });
});

describe('alertingGuardrailListener', () => {
  it('writes an alert-level log line and a ledger event on a trip, and an info line on recovery', async () => {
    const audit = new AuditRecorder();
    const lines: Array<[string, Record<string, unknown>]> = [];
    const log = {
      alert: (f: Record<string, unknown>) => lines.push(['alert', f]),
      info: (f: Record<string, unknown>) => lines.push(['info', f]),
      error: (f: Record<string, unknown>) => lines.push(['error', f]),
    };
    let now = 0;
    const g = new SloGuardrail(config, { now: () => now, listener: alertingGuardrailListener(audit, log) });
    for (let i = 0; i < 30; i++) g.record(500, true);
    now += 60_000;
    g.check();
    now += 31_000;
    g.check();
    await new Promise((r) => setImmediate(r));
    assert.deepEqual(lines.map(([level, f]) => [level, f['event_type']]), [['alert', 'slo.guardrail.tripped'], ['info', 'slo.guardrail.recovered']]);
    assert.deepEqual(audit.events.map((e) => [e.type, e.actor]), [['slo.guardrail.tripped', 'system'], ['slo.guardrail.recovered', 'system']]);
    assert.equal(audit.events[0]?.payload['advanced_reducers'], 'off');
  });
});
