import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { builtinBundle } from './default-bundle.ts';
import { enforceDecision } from './enforce-decision.ts';
import { PolicyEngine } from './policy-engine.ts';
import type { PolicyInput } from './types.ts';

const engine = new PolicyEngine(builtinBundle());
const input = (over: Partial<PolicyInput>): PolicyInput => ({
  principal: { actor: 'alice', roles: ['writer'], tenant: 'acme' },
  tenant: 'acme',
  work_unit_id: 'wu_01hzzzzzzzzzzzzzzzzzzzzzzz',
  work_unit_kind: 'byte_object',
  contract: 'exact_bytes',
  mode: 'enforce',
  action: 'semantic_summary',
  ...over,
});

describe('enforceDecision', () => {
  it('turns the exact_bytes refusal into a non-retryable policy_denied naming transform and contract', () => {
    const i = input({});
    const r = enforceDecision(engine.evaluate(i), i, 'tr_1');
    assert.equal(r.outcome, 'refused');
    if (r.outcome !== 'refused') return;
    assert.equal(r.error.code, 'policy_denied');
    assert.equal(r.error.retryable, false);
    assert.equal(r.error.httpStatus, 403);
    assert.match(r.error.message, /semantic_summary.*exact_bytes/);
    assert.equal(r.error.policyBundleId, engine.activeBundle().id);
    assert.equal(r.error.workUnitId, i.work_unit_id);
    assert.equal(r.event.type, 'policy.transform.denied');
    assert.equal(r.event.actor, 'alice');
    assert.equal(r.event.trace_id, 'tr_1');
    assert.equal(r.event.payload['enforced'], true);
  });

  it('refuses built-in guarantees in observe mode too', () => {
    const i = input({ mode: 'observe' });
    assert.equal(enforceDecision(engine.evaluate(i), i).outcome, 'refused');
    const del = input({ mode: 'observe', action: 'object.delete', action_class: 'operation' });
    const r = enforceDecision(engine.evaluate(del), del);
    assert.equal(r.outcome, 'refused');
    assert.equal(r.outcome === 'refused' && r.event.type, 'policy.operation.denied');
  });

  it('records but does not block a bundle deny in observe mode', () => {
    const i = input({ mode: 'observe', contract: 'semantic', action: 'zstd' });
    const deny = { ...engine.evaluate(i), allow: false, reasons: ['denied by pol_x'] };
    const r = enforceDecision(deny, i);
    assert.equal(r.outcome, 'observed');
    assert.equal(r.outcome === 'observed' && r.event.payload['enforced'], false);
  });

  it('fails closed in enforce mode and open in observe mode when evaluation is unavailable', () => {
    const unavailable = { ...engine.evaluate(input({ contract: 'semantic', action: 'zstd' })), allow: false, guarantee: 'evaluation_unavailable' as const };
    assert.equal(enforceDecision(unavailable, input({ contract: 'semantic', action: 'zstd' })).outcome, 'refused');
    assert.equal(enforceDecision(unavailable, input({ contract: 'semantic', action: 'zstd', mode: 'observe' })).outcome, 'observed');
  });

  it('allows what the policy allows', () => {
    const i = input({ action: 'zstd' });
    assert.deepEqual(enforceDecision(engine.evaluate(i), i), { outcome: 'allowed' });
  });
});

describe('PolicyEngine', () => {
  it('returns a fail-closed decision when evaluation throws', () => {
    const broken = new PolicyEngine(builtinBundle());
    const bad = input({ contract: 'semantic', action: 'zstd' });
    // A principal without roles array makes role matching throw inside a policy that reads roles.
    broken.activate({ ...builtinBundle(), content: { ...builtinBundle().content, policies: [{ id: 'pol_roles', description: '', priority: 0, effect: 'allow', match: { role: 'admin' }, obligations: [] }] } });
    const d = broken.evaluate({ ...bad, principal: { actor: 'x', tenant: undefined } as unknown as PolicyInput['principal'] });
    assert.equal(d.allow, false);
    assert.equal(d.guarantee, 'evaluation_unavailable');
  });

  it('swaps bundles atomically on activate', () => {
    const e = new PolicyEngine(builtinBundle());
    const before = e.activeBundle();
    e.activate(builtinBundle('other'));
    assert.notEqual(e.activeBundle().name, before.name);
    assert.equal(e.activeBundle().name, 'other');
  });
});
