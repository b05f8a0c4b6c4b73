/**
 * The in-process form of every alert, over svc's real metrics registry and a
 * controlled clock: each alert fires when its metric is provoked for longer
 * than its `for`, and stays quiet on healthy traffic. Critical alerts append
 * `alert.fired` (once) and `alert.resolved`.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { LedgerEventInput } from '../ledger/event.ts';
import { type SvcMetrics, createMetrics, exportPolicyUnavailability } from '../observability/metrics.ts';
import { ALERTS } from './alert-definitions.ts';
import { windowSeconds } from './alert-expr.ts';
import { AlertService } from './alert-service.ts';
import { histogramQuantile } from './evaluate-expr.ts';

const MIB = 1024 * 1024;

interface Scenario {
  /** Called before every evaluation: traffic that should make the alert fire. */
  fire(m: SvcMetrics): void;
  /** Healthy traffic of the same kind (or nothing). */
  quiet(m: SvcMetrics): void;
}

const policyCounts = new WeakMap<SvcMetrics, { observe: number; enforce: number }>();

const SCENARIOS: Record<string, Scenario> = {
  SvcExactRehydrationFailure: { fire: (m) => m.verifierFailures.inc({ verifier: 'rehydration' }), quiet: (m) => m.verifierFailures.inc({ verifier: 'chat_completion' }) },
  SvcCrossTenantCacheHitAccepted: { fire: (m) => m.cacheCrossTenantHits.inc(), quiet: (m) => m.cacheHits.inc({ cache: 'exact' }) },
  SvcPolicyEvaluationUnavailable: { fire: (m) => void policyCounts.get(m)!.enforce++, quiet: (m) => void policyCounts.get(m)!.observe++ },
  SvcManifestStoreWriteFailure: { fire: (m) => m.manifestWriteFailures.inc(), quiet: (m) => m.manifestWriteSeconds.observe(0.01) },
  SvcLedgerAppendFailure: { fire: (m) => m.ledgerAppendFailures.inc(), quiet: (m) => m.ledgerEvents.inc({ type: 'plan.created' }) },
  SvcVerifierFailureWithoutFallback: { fire: (m) => m.verifierFailuresWithoutFallback.inc(), quiet: (m) => m.aiFallbacks.inc({ reason: 'verifier_failed' }) },
  SvcLegalHoldDeletionAttempt: { fire: (m) => m.legalHoldDeletionAttempts.inc(), quiet: () => {} },
  SvcPluginSignatureFailure: { fire: (m) => m.pluginSignatureFailures.inc({ stage: 'load' }), quiet: (m) => m.pluginCalls.inc({ plugin: 'acme.x', outcome: 'ok' }) },
  SvcCacheHitRateDrop: {
    fire: (m) => (m.cacheHits.inc({ cache: 'exact' }, 10), m.cacheMisses.inc({ cache: 'exact' }, 200)),
    quiet: (m) => (m.cacheHits.inc({ cache: 'exact' }, 200), m.cacheMisses.inc({ cache: 'exact' }, 10)),
  },
  SvcCompressionRatioDrop: { fire: (m) => (m.bytesIn.inc(100 * MIB), m.bytesStored.inc(99 * MIB)), quiet: (m) => (m.bytesIn.inc(100 * MIB), m.bytesStored.inc(40 * MIB)) },
  SvcP95LatencyRise: {
    fire: (m) => { for (let i = 0; i < 60; i++) m.httpSeconds.observe({ route: '/v1/work-units' }, 0.9); },
    quiet: (m) => { for (let i = 0; i < 60; i++) m.httpSeconds.observe({ route: '/v1/work-units' }, 0.02); },
  },
  SvcDedupeIndexGrowth: { fire: (m) => m.chunks.inc(1_100_000), quiet: (m) => (m.chunks.inc(1_100_000), m.chunkDedupeHits.inc(1_090_000)) },
  SvcSemanticCacheStaleness: {
    fire: (m) => (m.semanticCacheStale.inc(15), m.cacheMisses.inc({ cache: 'semantic' }, 30)),
    quiet: (m) => (m.semanticCacheStale.inc(1), m.cacheMisses.inc({ cache: 'semantic' }, 30)),
  },
  SvcModelFallbackRate: {
    fire: (m) => (m.workUnits.inc({ kind: 'prompt_request' }, 30), m.aiFallbacks.inc({ reason: 'verifier_failed' }, 5)),
    quiet: (m) => (m.workUnits.inc({ kind: 'prompt_request' }, 30), m.workUnits.inc({ kind: 'byte_object' }, 500)),
  },
  SvcSchedulerMissedDeadlines: { fire: (m) => m.schedulerMissedDeadlines.inc(), quiet: (m) => m.schedulerTransitions.inc({ state: 'succeeded' }) },
};

async function run(alertName: string, traffic: 'fire' | 'quiet') {
  const def = ALERTS.find((a) => a.name === alertName)!;
  const metrics = createMetrics();
  const counts = { observe: 0, enforce: 0 };
  policyCounts.set(metrics, counts);
  exportPolicyUnavailability(metrics, () => counts);
  const events: LedgerEventInput[] = [];
  let now = Date.parse('2026-01-01T00:00:00Z');
  const alerts = new AlertService({ registry: metrics.registry, ledger: { append: async (e) => void events.push(e) }, now: () => now, sampleIntervalMs: 0 });
  await alerts.start();
  // Provoke every 4 minutes for `for` + a margin (the step is shorter than every window).
  const until = now + (windowSeconds(def.for) + 180) * 1000;
  let report;
  do {
    now += 60_000;
    SCENARIOS[alertName]![traffic](metrics);
    report = await alerts.evaluate();
    now += 180_000;
  } while (now <= until);
  return { status: report.alerts.find((a) => a.name === alertName)!, events, alerts, advance: (ms: number) => (now += ms) };
}

describe('in-process alert evaluation', () => {
  test('every alert has a scenario', () => {
    assert.deepEqual(Object.keys(SCENARIOS).sort(), ALERTS.map((a) => a.name).sort());
  });

  for (const def of ALERTS) {
    test(`${def.name} fires when provoked for longer than ${def.for}`, async () => {
      const { status, events } = await run(def.name, 'fire');
      assert.equal(status.state, 'firing', JSON.stringify(status));
      const fired = events.filter((e) => e.type === 'alert.fired');
      if (def.severity === 'critical') {
        assert.equal(fired.length, 1, 'one ledger event, not one per evaluation');
        assert.equal(fired[0]!.payload!.alert, def.name);
      } else {
        assert.equal(fired.length, 0, 'warnings are not ledger events');
      }
    });

    test(`${def.name} stays quiet on healthy traffic`, async () => {
      const { status, events } = await run(def.name, 'quiet');
      assert.equal(status.state, 'inactive', JSON.stringify(status));
      assert.equal(events.length, 0);
    });
  }

  test('a critical alert resolves (alert.resolved) once its window has no new failures', async () => {
    const { events, alerts, advance } = await run('SvcLedgerAppendFailure', 'fire');
    advance(10 * 60_000);
    const report = await alerts.evaluate();
    assert.equal(report.alerts.find((a) => a.name === 'SvcLedgerAppendFailure')!.state, 'inactive');
    assert.deepEqual(events.map((e) => e.type), ['alert.fired', 'alert.resolved']);
  });

  test('histogram_quantile interpolates inside the bucket like Prometheus', () => {
    assert.ok(Math.abs(histogramQuantile(0.95, [{ le: 0.1, count: 0 }, { le: 1, count: 20 }, { le: Infinity, count: 20 }])! - 0.955) < 1e-9);
    assert.equal(histogramQuantile(0.5, [{ le: 1, count: 0 }, { le: Infinity, count: 0 }]), null);
  });
});
