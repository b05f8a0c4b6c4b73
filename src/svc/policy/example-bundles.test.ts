import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { makeBundle } from './bundle.ts';
import { PolicyEngine } from './policy-engine.ts';
import { validatePolicyText } from './validate-policy-text.ts';

const dir = path.join(import.meta.dirname, '..', '..', '..', 'examples', 'policies');

describe('shipped policy examples', () => {
  for (const file of readdirSync(dir).filter((f) => f.endsWith('.yaml'))) {
    it(`${file} validates`, () => {
      const r = validatePolicyText(readFileSync(path.join(dir, file), 'utf8'));
      assert.deepEqual(r.ok ? [] : r.errors, []);
    });
  }

  it('the platform bundle has at least 50 policies and decides the documented cases', () => {
    const r = validatePolicyText(readFileSync(path.join(dir, 'platform-bundle.yaml'), 'utf8'));
    assert.ok(r.ok && r.kind === 'bundle');
    if (!r.ok || r.kind !== 'bundle') return;
    assert.ok(r.bundle.policies.length >= 50);
    const engine = new PolicyEngine(makeBundle(r.bundle, 'pb_01aaaaaaaaaaaaaaaaaaaaaaaa'));
    const base = { principal: { actor: 'u', roles: ['writer' as const], tenant: undefined }, tenant: 'acme', work_unit_kind: 'byte_object', contract: 'semantic', mode: 'enforce' as const };
    const legalHoldDelete = engine.evaluate({ ...base, action: 'object.delete', namespace: 'scratch/x', attributes: { legal_hold: true } });
    assert.equal(legalHoldDelete.allow, false);
    assert.deepEqual(legalHoldDelete.reasons, ['denied by pol_delete_legal_hold_never (no delete under legal hold, whatever else allows it)']);
    assert.equal(engine.evaluate({ ...base, action: 'object.delete', namespace: 'scratch/x' }).allow, true);
    const prodDelete = engine.evaluate({ ...base, principal: { ...base.principal, roles: ['admin'] }, action: 'object.delete', namespace: 'prod/orders' });
    assert.deepEqual([prodDelete.allow, prodDelete.obligations], [true, ['requires_approval']]);
    assert.equal(engine.evaluate({ ...base, action: 'semantic_summary', action_class: 'semantic', namespace: 'legal/contracts', risk: 'low' }).allow, false);
  });
});
