import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AuditRecorder } from '../../../test/policy/support/audit-recorder.ts';
import { MemorySwitchStore } from '../../../test/policy/support/memory-switch-store.ts';
import { makePrincipal } from '../auth/principal.ts';
import type { SvcError } from '../errors.ts';
import type { BundleRef } from '../policy/types.ts';
import { Switchboard } from './switchboard.ts';
import type { SwitchChange } from './switches.ts';

const operator = { principal: makePrincipal('olga', ['operator']), traceId: 'tr_op' };
const writer = { principal: makePrincipal('wendy', ['writer']) };
const BUNDLE: BundleRef = { id: 'pb_01aaaaaaaaaaaaaaaaaaaaaaaa', name: 'strict', version: '3', hash: 'c'.repeat(64) };

async function board() {
  const store = new MemorySwitchStore();
  const audit = new AuditRecorder();
  const switched: Array<{ name: string; version: string | null } | null> = [];
  const b = await Switchboard.open({
    store,
    audit,
    now: () => new Date('2030-01-01T00:00:00Z'),
    switchPolicyBundle: async (target) => {
      switched.push(target);
      return BUNDLE;
    },
  });
  return { b, store, audit, switched };
}

describe('Switchboard', () => {
  const cases: Array<[SwitchChange, (s: ReturnType<Switchboard['current']>) => unknown, unknown]> = [
    [{ switch: 'force_exact_contract', enabled: true }, (s) => s.force_exact_contract, true],
    [{ switch: 'bypass_optimisation', enabled: true }, (s) => s.bypass_optimisation, true],
    [{ switch: 'disable_reducer', name: 'zstd', disabled: true }, (s) => s.disabled_reducers, ['zstd']],
    [{ switch: 'disable_plugin', name: 'vendor.summarizer', disabled: true }, (s) => s.disabled_plugins, ['vendor.summarizer']],
    [{ switch: 'disable_model_router', enabled: true }, (s) => s.model_router_disabled, true],
    [{ switch: 'route_to_baseline_provider', enabled: true }, (s) => s.route_to_baseline_provider, true],
    [{ switch: 'policy_bundle', name: 'strict', version: '3' }, (s) => s.policy_bundle, { name: 'strict', version: '3' }],
  ];

  for (const [change, read, expected] of cases) {
    it(`applies ${change.switch}, persists it and audits it with before and after`, async () => {
      const { b, store, audit } = await board();
      const r = await b.apply(operator, change);
      assert.deepEqual(read(r.switches), expected);
      assert.deepEqual(read(b.current()), expected);
      assert.deepEqual(store.saved && read(store.saved), expected);
      const [event] = audit.ofType('admin.switch.changed');
      assert.equal(event?.actor, 'olga');
      assert.equal(event?.payload['switch'], change.switch);
      assert.notDeepEqual(event?.payload['before'], event?.payload['after']);
    });
  }

  it('puts the switched bundle in force through the policy service and records its id', async () => {
    const { b, audit, switched } = await board();
    await b.apply(operator, { switch: 'policy_bundle', name: 'strict', version: '3' });
    assert.deepEqual(switched, [{ name: 'strict', version: '3' }]);
    assert.equal(audit.ofType('admin.switch.changed')[0]?.policy_bundle_id, BUNDLE.id);
  });

  it('switches back to the configured bundle with name null', async () => {
    const { b, switched } = await board();
    const r = await b.apply(operator, { switch: 'policy_bundle', name: null });
    assert.equal(r.switches.policy_bundle, null);
    assert.deepEqual(switched, [null]);
  });

  it('re-applies a persisted bundle switch on start', async () => {
    const { b, store } = await board();
    await b.apply(operator, { switch: 'policy_bundle', name: 'strict' });
    const switched: unknown[] = [];
    await Switchboard.open({ store, audit: new AuditRecorder(), switchPolicyBundle: async (t) => (switched.push(t), BUNDLE) });
    assert.deepEqual(switched, [{ name: 'strict', version: null }]);
  });

  it('clears the semantic cache through the registered hook', async () => {
    const { b, audit } = await board();
    const calls: Array<string | undefined> = [];
    b.registerSemanticCacheClearer(async (tenant) => (calls.push(tenant), 7));
    const r = await b.apply(operator, { switch: 'clear_semantic_cache', tenant: 'acme' });
    assert.deepEqual(calls, ['acme']);
    assert.deepEqual(r.effect, { cleared: 7, tenant: 'acme' });
    assert.equal(r.switches.semantic_cache_cleared_at, '2030-01-01T00:00:00.000Z');
    assert.equal(audit.ofType('admin.switch.changed')[0]?.tenant, 'acme');
  });

  it('refuses to clear the semantic cache when no cache registered', async () => {
    const { b, store } = await board();
    await assert.rejects(b.apply(operator, { switch: 'clear_semantic_cache' }), (e: SvcError) => e.code === 'unavailable');
    assert.equal(store.saves, 0);
  });

  it('refuses a principal without admin:switches', async () => {
    const { b } = await board();
    assert.throws(() => b.apply(writer, { switch: 'force_exact_contract', enabled: true }), (e: SvcError) => e.code === 'forbidden');
  });

  it('does not lose updates when changes race', async () => {
    const { b } = await board();
    await Promise.all(['zstd', 'gzip', 'dedupe', 'context_compile'].map((name) => b.apply(operator, { switch: 'disable_reducer', name, disabled: true })));
    assert.deepEqual(b.current().disabled_reducers, ['context_compile', 'dedupe', 'gzip', 'zstd']);
  });

  it('refuses an unknown reducer name and lists the valid ones, changing nothing', async () => {
    const { b } = await board();
    assert.throws(
      () => b.apply(operator, { switch: 'disable_reducer', name: 'no_such_reducer', disabled: true }),
      (e: SvcError) => e.code === 'invalid_request' && /no_such_reducer/.test(e.message) && /zstd/.test(e.message) && !/\bhash\b/.test(e.message),
    );
    assert.deepEqual(b.current().disabled_reducers, []);
  });
});
