import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { makeBundle } from './bundle.ts';
import { compileBundle } from './compile-bundle.ts';
import { evaluateCompiled } from './evaluate.ts';
import type { BundleDoc } from './policy-schema.ts';
import type { PolicyInput } from './types.ts';

const ID = 'pb_01hzzzzzzzzzzzzzzzzzzzzzzz';

function evaluatorFor(doc: Omit<BundleDoc, 'name' | 'version'> & Partial<BundleDoc>) {
  const compiled = compileBundle(makeBundle({ name: 'test', version: '1', ...doc }, ID));
  return (input: Partial<PolicyInput>) => evaluateCompiled(compiled, { ...baseInput, ...input });
}

const baseInput: PolicyInput = {
  principal: { actor: 'alice', roles: ['writer'], tenant: undefined },
  tenant: 'acme',
  namespace: 'analytics',
  work_unit_kind: 'byte_object',
  contract: 'semantic',
  mode: 'enforce',
  action: 'zstd',
};

describe('policy evaluation', () => {
  it('applies the bundle default when no policy decides', () => {
    const allowAll = evaluatorFor({ policies: [] });
    const d = allowAll({});
    assert.equal(d.allow, true);
    assert.equal(d.default_applied, true);
    const denyAll = evaluatorFor({ default_effect: 'deny', policies: [] });
    assert.equal(denyAll({}).allow, false);
  });

  it('lets the highest-priority matching policy decide', () => {
    const evaluate = evaluatorFor({
      policies: [
        { id: 'pol_deny_zstd', effect: 'deny', priority: 1, match: { action: 'zstd' } },
        { id: 'pol_allow_acme_zstd', effect: 'allow', priority: 5, match: { action: 'zstd', tenant: 'acme' } },
      ],
    });
    const acme = evaluate({});
    assert.equal(acme.allow, true);
    assert.deepEqual(acme.reasons, ['allowed by pol_allow_acme_zstd']);
    assert.deepEqual(acme.matched_policy_ids, ['pol_allow_acme_zstd', 'pol_deny_zstd']);
    assert.equal(evaluate({ tenant: 'other' }).allow, false);
  });

  it('lets deny override allow at equal priority', () => {
    const evaluate = evaluatorFor({
      policies: [
        { id: 'pol_allow', effect: 'allow', match: { action: 'zstd' } },
        { id: 'pol_deny', effect: 'deny', description: 'no zstd in analytics', match: { namespace: 'analytics' } },
      ],
    });
    const d = evaluate({});
    assert.equal(d.allow, false);
    assert.deepEqual(d.reasons, ['denied by pol_deny (no zstd in analytics)']);
  });

  it('collects obligations from every matching policy and drops them on deny', () => {
    const evaluate = evaluatorFor({
      policies: [
        { id: 'pol_allow', effect: 'allow', match: { action: 'semantic_summary' } },
        { id: 'pol_approval', obligations: ['requires_approval'], match: { risk: 'high' } },
        { id: 'pol_observe', obligations: ['observe_only', 'requires_approval'], match: { tenant: { prefix: 'ac' } } },
        { id: 'pol_deny_prod', effect: 'deny', priority: 9, match: { namespace: 'prod' } },
      ],
    });
    assert.deepEqual(evaluate({ action: 'semantic_summary', risk: 'high' }).obligations, ['requires_approval', 'observe_only']);
    assert.deepEqual(evaluate({ action: 'semantic_summary', risk: 'low' }).obligations, ['observe_only', 'requires_approval']);
    const denied = evaluate({ action: 'semantic_summary', namespace: 'prod' });
    assert.equal(denied.allow, false);
    assert.deepEqual(denied.obligations, []);
  });

  it('supports in, not_in, ne, prefix, exists and numeric comparisons', () => {
    const evaluate = evaluatorFor({
      default_effect: 'deny',
      policies: [
        {
          id: 'pol_combo',
          effect: 'allow',
          match: {
            tenant: { in: ['acme', 'globex'] },
            namespace: { not_in: ['prod'] },
            contract: { ne: 'exact_bytes' },
            work_unit_kind: { prefix: 'byte_' },
            model_route: { exists: false },
            attributes: { size_bytes: { gte: 100, lt: 1000 }, encrypted: false },
          },
        },
      ],
    });
    const ok = { attributes: { size_bytes: 100, encrypted: false } };
    assert.equal(evaluate(ok).allow, true);
    assert.equal(evaluate({ ...ok, tenant: 'initech' }).allow, false, 'in');
    assert.equal(evaluate({ ...ok, namespace: 'prod' }).allow, false, 'not_in');
    assert.equal(evaluate({ ...ok, contract: 'exact_bytes' }).allow, false, 'ne');
    assert.equal(evaluate({ ...ok, work_unit_kind: 'prompt_request' }).allow, false, 'prefix');
    assert.equal(evaluate({ ...ok, model_route: 'small' }).allow, false, 'exists');
    assert.equal(evaluate({ attributes: { size_bytes: 1000, encrypted: false } }).allow, false, 'lt');
    assert.equal(evaluate({ attributes: { size_bytes: '500', encrypted: false } }).allow, false, 'numeric operators ignore strings');
    assert.equal(evaluate({ attributes: { size_bytes: 500 } }).allow, false, 'missing attribute is not equal');
  });

  it('matches role when any of the principal roles satisfies the condition', () => {
    const evaluate = evaluatorFor({
      default_effect: 'deny',
      policies: [{ id: 'pol_admins', effect: 'allow', match: { role: 'admin', actor: { ne: 'mallory' } } }],
    });
    assert.equal(evaluate({ principal: { actor: 'bob', roles: ['writer', 'admin'], tenant: undefined } }).allow, true);
    assert.equal(evaluate({ principal: { actor: 'bob', roles: ['writer'], tenant: undefined } }).allow, false);
    assert.equal(evaluate({ principal: { actor: 'mallory', roles: ['admin'], tenant: undefined } }).allow, false);
  });

  it('finds action-indexed and wildcard policies alike', () => {
    const evaluate = evaluatorFor({
      default_effect: 'deny',
      policies: [
        { id: 'pol_indexed', effect: 'allow', match: { action: { in: ['zstd', 'gzip'] } } },
        { id: 'pol_prefix', effect: 'allow', match: { action: { prefix: 'model.' } } },
        { id: 'pol_any', obligations: ['observe_only'], match: { tenant: 'acme' } },
      ],
    });
    assert.deepEqual(evaluate({ action: 'gzip' }).matched_policy_ids, ['pol_indexed', 'pol_any']);
    assert.deepEqual(evaluate({ action: 'model.route' }).matched_policy_ids, ['pol_prefix', 'pol_any']);
    assert.equal(evaluate({ action: 'brotli' }).allow, false);
  });
});

describe('built-in guarantees', () => {
  const permissive = evaluatorFor({
    policies: [{ id: 'pol_allow_everything', effect: 'allow', priority: 1000 }],
  });

  it('denies a listed semantic transform under exact_bytes even when a policy allows it', () => {
    const d = permissive({ contract: 'exact_bytes', action: 'semantic_summary' });
    assert.equal(d.allow, false);
    assert.equal(d.guarantee, 'exact_bytes_no_semantic');
    assert.match(d.reasons[0] ?? '', /semantic_summary/);
    assert.match(d.reasons[0] ?? '', /exact_bytes/);
  });

  it('denies any action the caller classes as semantic under exact_bytes', () => {
    const d = permissive({ contract: 'exact_bytes', action: 'vendor_rewrite', action_class: 'semantic' });
    assert.equal(d.allow, false);
    assert.equal(d.guarantee, 'exact_bytes_no_semantic');
  });

  it('does not let a caller declare a listed semantic transform exact', () => {
    assert.equal(permissive({ contract: 'exact_bytes', action: 'context_compile', action_class: 'exact' }).allow, false);
  });

  it('allows exact reducers under exact_bytes and semantic transforms under semantic', () => {
    assert.equal(permissive({ contract: 'exact_bytes', action: 'zstd' }).allow, true);
    assert.equal(permissive({ contract: 'semantic', action: 'semantic_summary' }).allow, true);
  });

  it('denies object delete when no policy allows it, whatever the default effect', () => {
    const d = evaluatorFor({ default_effect: 'allow', policies: [] })({ action: 'object.delete', action_class: 'operation' });
    assert.equal(d.allow, false);
    assert.equal(d.guarantee, 'object_delete_default_deny');
  });

  it('allows object delete when a policy explicitly allows it', () => {
    const evaluate = evaluatorFor({
      policies: [{ id: 'pol_scratch_delete', effect: 'allow', match: { action: 'object.delete', namespace: 'scratch' } }],
    });
    assert.equal(evaluate({ action: 'object.delete', namespace: 'scratch' }).allow, true);
    assert.equal(evaluate({ action: 'object.delete', namespace: 'analytics' }).allow, false);
  });

  it('keeps a policy-denied delete attributed to the policy, not the built-in', () => {
    const evaluate = evaluatorFor({ policies: [{ id: 'pol_no_delete', effect: 'deny', match: { action: 'object.delete' } }] });
    const d = evaluate({ action: 'object.delete' });
    assert.equal(d.allow, false);
    assert.equal(d.guarantee, undefined);
    assert.deepEqual(d.matched_policy_ids, ['pol_no_delete']);
  });
});
