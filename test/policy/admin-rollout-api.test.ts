/**
 * Rollout and rollback controls through the real server on SQLite and
 * PostgreSQL: every admin switch (audited, persisted, visible in
 * readiness), canary percentage determinism from configuration, and an SLO
 * guardrail trip driven by real requests.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { engines } from '../helpers/engines.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { ledgerEvents } from './support/ledger.ts';

const rollout = {
  default: { mode: 'observe', reducers: 'exact' },
  canaries: [{ name: 'acme-10pct', match: { tenants: ['acme'], percentage: 10 }, mode: 'enforce', reducers: 'all' }],
};
const guardrail = { min_samples: 5, latency_p95_ms: 0.0001, check_interval_ms: 0, recovery_seconds: 3600 };

for (const engine of engines()) {
  describe(`admin switches and rollout on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    before(async () => {
      // Fresh copies: the loaded configuration is frozen in place.
      s = await startTestServer({ engine: engine.name, overrides: { rollout: structuredClone(rollout), guardrail: { ...guardrail } } });
    });
    after(async () => {
      await s?.close();
    });

    const flip = async (body: Record<string, unknown>, key: string = KEYS.operator) => {
      const res = await s.call('POST', '/v1/admin/switches', { key, body });
      return { status: res.status, body: (await res.json()) as { switches: Record<string, unknown>; effect?: Record<string, unknown> } };
    };
    const readiness = async () => (await (await s.call('GET', '/v1/admin/readiness', { key: KEYS.operator })).json()) as {
      checks: Array<{ name: string; detail?: string }>;
      rollout: { switches: Record<string, unknown>; guardrail: { tripped: boolean; reason: string | null } };
    };

    const cases: Array<[Record<string, unknown>, string, unknown]> = [
      [{ switch: 'force_exact_contract', enabled: true }, 'force_exact_contract', true],
      [{ switch: 'bypass_optimisation', enabled: true }, 'bypass_optimisation', true],
      [{ switch: 'disable_reducer', name: 'zstd', disabled: true }, 'disabled_reducers', ['zstd']],
      [{ switch: 'disable_plugin', name: 'vendor.summarizer', disabled: true }, 'disabled_plugins', ['vendor.summarizer']],
      [{ switch: 'disable_model_router', enabled: true }, 'model_router_disabled', true],
      [{ switch: 'route_to_baseline_provider', enabled: true }, 'route_to_baseline_provider', true],
    ];
    for (const [change, field, expected] of cases) {
      it(`switch ${String(change['switch'])} is applied, persisted, visible in readiness and audited`, async () => {
        const r = await flip(change);
        assert.equal(r.status, 200);
        assert.deepEqual(r.body.switches[field], expected);
        assert.deepEqual((await readiness()).rollout.switches[field], expected);
        assert.deepEqual((await s.app.store.switches.load())?.[field as 'force_exact_contract'], expected);
        const events = await ledgerEvents(s, ['admin.switch.changed']);
        assert.ok(events.some((e) => e.actor === 'operator' && e.payload['switch'] === change['switch']));
      });
    }

    it('refuses disable_reducer with an unknown name: 400 naming the valid reducers, nothing changed', async () => {
      const before = await s.app.store.switches.load();
      const res = await s.call('POST', '/v1/admin/switches', { key: KEYS.operator, body: { switch: 'disable_reducer', name: 'no_such_reducer', disabled: true } });
      assert.equal(res.status, 400);
      const body = (await res.json()) as { error: { code: string; message: string; retryable: boolean } };
      assert.equal(body.error.code, 'invalid_request');
      assert.match(body.error.message, /unknown reducer 'no_such_reducer'.*zstd/);
      assert.deepEqual((await s.app.store.switches.load())?.disabled_reducers, before?.disabled_reducers);
    });

    it('the switches change what a work unit may do', () => {
      const d = s.app.rollout.decide({ tenant: 'acme', work_unit_kind: 'byte_object', contract: 'semantic', requested_mode: 'enforce', work_unit_id: 'wu_01jaaaaaaaaaaaaaaaaaaaaaaa' });
      assert.equal(d.contract, 'exact_bytes');
      assert.equal(d.mode, 'observe');
      assert.equal(d.reducers, 'none');
    });

    it('switches the policy bundle and back', async () => {
      const pub = await s.call('POST', '/v1/policies/bundles/strict/publish', {
        key: KEYS.publisher,
        body: { document: 'name: strict\nversion: "1"\ndefault_effect: deny\npolicies: []\n' },
      });
      assert.equal(pub.status, 201);
      const r = await flip({ switch: 'policy_bundle', name: 'strict' });
      assert.equal(r.status, 200);
      assert.equal(s.app.policy.engine.activeBundle().name, 'strict');
      assert.match((await readiness()).checks.find((c) => c.name === 'rollout')?.detail ?? '', /policy_bundle=strict/);
      await flip({ switch: 'policy_bundle', name: null });
      assert.equal(s.app.policy.engine.activeBundle().name, 'default');
    });

    it('clears the semantic cache through the hook the cache registers', async () => {
      s.app.rollout.switchboard.registerSemanticCacheClearer(async () => 3);
      const r = await flip({ switch: 'clear_semantic_cache' });
      assert.equal(r.status, 200);
      assert.deepEqual(r.body.effect, { cleared: 3, tenant: null });
    });

    it('refuses switches to a principal without admin:switches', async () => {
      assert.equal((await flip({ switch: 'force_exact_contract', enabled: false }, KEYS.acmeWriter)).status, 403);
      assert.equal((await flip({ switch: 'no_such_switch' })).status, 400);
    });

    it('selects the same work units for a percentage canary on every call', () => {
      const ids = Array.from({ length: 400 }, (_, i) => `wu_01j${String(i).padStart(23, '0')}`);
      const pick = () => ids.filter((id) => s.app.rollout.decide({ tenant: 'acme', work_unit_kind: 'byte_object', contract: 'semantic', requested_mode: 'enforce', work_unit_id: id }).canary === 'acme-10pct');
      const first = pick();
      assert.deepEqual(pick(), first);
      assert.ok(first.length > 20 && first.length < 60, `selected ${first.length} of 400`);
    });

    it('trips the SLO guardrail from real hot-path traffic, alerts and shows it in readiness', async () => {
      for (let i = 0; i < 6; i++) await s.call('GET', '/v1/work-units/wu_01jzzzzzzzzzzzzzzzzzzzzzzz', { key: KEYS.acmeWriter });
      const r = await readiness();
      assert.equal(r.rollout.guardrail.tripped, true);
      assert.match(r.rollout.guardrail.reason ?? '', /p95 latency/);
      assert.match(r.checks.find((c) => c.name === 'rollout')?.detail ?? '', /guardrail TRIPPED/);
      const [event] = await ledgerEvents(s, ['slo.guardrail.tripped']);
      assert.equal(event?.actor, 'system');
      await s.call('POST', '/v1/admin/switches', { key: KEYS.operator, body: { switch: 'bypass_optimisation', enabled: false } });
      const d = s.app.rollout.decide({ tenant: 'acme', work_unit_kind: 'byte_object', contract: 'semantic', requested_mode: 'enforce' });
      assert.equal(d.guardrail_tripped, true);
      assert.notEqual(d.reducers, 'all');
    });
  });
}
