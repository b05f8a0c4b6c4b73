import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatValidationIssues, validatePolicyText } from './validate-policy-text.ts';

const VALID_BUNDLE = `name: platform
version: "1.0.0"
policies:
  - id: pol_allow_zstd
    effect: allow
    match:
      action: zstd
  - id: pol_big_objects_need_approval
    effect: allow
    match:
      action_class: semantic
      attributes:
        size_bytes: { gt: 1048576 }
    obligations: [requires_approval]
`;

describe('validatePolicyText', () => {
  it('accepts a valid YAML bundle and returns the parsed document', () => {
    const r = validatePolicyText(VALID_BUNDLE);
    assert.equal(r.ok, true);
    assert.equal(r.ok && r.kind === 'bundle' && r.bundle.policies.length, 2);
  });

  it('accepts the same bundle written as JSON', () => {
    const json = JSON.stringify({ name: 'platform', version: '1', policies: [{ id: 'pol_a', effect: 'deny', match: { action: 'zstd' } }] }, null, 2);
    const r = validatePolicyText(json);
    assert.equal(r.ok && r.kind, 'bundle');
  });

  it('accepts a single policy document', () => {
    const r = validatePolicyText('id: pol_one\neffect: deny\nmatch:\n  tenant: { prefix: "test-" }\n');
    assert.equal(r.ok && r.kind, 'policy');
  });

  it('reports an invalid effect on the line where it is written', () => {
    const text = VALID_BUNDLE.replace('effect: allow\n    match:\n      action: zstd', 'effect: permit\n    match:\n      action: zstd');
    const r = validatePolicyText(text);
    assert.equal(r.ok, false);
    const errors = r.ok ? [] : r.errors;
    assert.equal(errors.length, 1);
    assert.equal(errors[0]?.line, 5);
    assert.equal(errors[0]?.path, '/policies/0/effect');
    assert.match(errors[0]?.message ?? '', /allow.*deny/);
  });

  it('points an unknown field at its key', () => {
    const text = VALID_BUNDLE.replace('      action: zstd', '      action: zstd\n      colour: blue');
    const r = validatePolicyText(text);
    const errors = r.ok ? [] : r.errors;
    assert.deepEqual(errors.map((e) => [e.line, e.message]), [[8, "unknown field 'colour'"]]);
  });

  it('reports a malformed policy id with the line of the id', () => {
    const r = validatePolicyText(VALID_BUNDLE.replace('pol_allow_zstd', 'allow_zstd'));
    const errors = r.ok ? [] : r.errors;
    assert.equal(errors[0]?.line, 4);
    assert.match(errors[0]?.message ?? '', /\^pol_/);
  });

  it('reports a missing required field at the object that lacks it', () => {
    const r = validatePolicyText('name: platform\npolicies: []\n');
    const errors = r.ok ? [] : r.errors;
    assert.equal(errors.length, 1);
    assert.match(errors[0]?.message ?? '', /version/);
    assert.equal(errors[0]?.line, 1);
  });

  it('explains a condition of the wrong type once instead of once per union branch', () => {
    const r = validatePolicyText('id: pol_x\neffect: deny\nmatch:\n  tenant: [a, b]\n');
    const errors = r.ok ? [] : r.errors;
    assert.equal(errors.length, 1);
    assert.equal(errors[0]?.line, 4);
    assert.match(errors[0]?.message ?? '', /string, number, boolean, object/);
  });

  it('reports an unknown operator inside a condition object', () => {
    const r = validatePolicyText('id: pol_x\neffect: deny\nmatch:\n  tenant:\n    startswith: acme\n');
    const errors = r.ok ? [] : r.errors;
    assert.deepEqual(errors.map((e) => [e.line, e.message]), [[5, "unknown field 'startswith'"]]);
  });

  it('rejects duplicate policy ids and names the first use', () => {
    const text = `${VALID_BUNDLE}  - id: pol_allow_zstd\n    effect: deny\n`;
    const r = validatePolicyText(text);
    const errors = r.ok ? [] : r.errors;
    assert.equal(errors.length, 1);
    assert.equal(errors[0]?.line, 15);
    assert.match(errors[0]?.message ?? '', /duplicate policy id 'pol_allow_zstd' \(first used by policy #1\)/);
  });

  it('rejects numeric operators on text fields', () => {
    const r = validatePolicyText('id: pol_x\neffect: deny\nmatch:\n  tenant: { gt: 3 }\n');
    const errors = r.ok ? [] : r.errors;
    assert.equal(errors[0]?.line, 4);
    assert.match(errors[0]?.message ?? '', /attributes only/);
  });

  it('rejects a policy that can never change a decision', () => {
    const r = validatePolicyText('id: pol_x\nmatch:\n  tenant: a\n');
    assert.equal(r.ok, false);
    assert.match(r.ok ? '' : (r.errors[0]?.message ?? ''), /neither an effect nor obligations/);
  });

  it('reports YAML syntax errors with their line', () => {
    const r = validatePolicyText('name: platform\nversion: "1"\npolicies:\n  - id: pol_a\n    effect: deny\n   bad: x\n');
    assert.equal(r.ok, false);
    assert.equal(r.ok ? 0 : r.errors[0]?.line, 6);
  });

  it('rejects a key written twice and points at the repeat', () => {
    const r = validatePolicyText('name: platform\nversion: "1"\nversion: "2"\npolicies: []\n');
    assert.equal(r.ok ? 0 : r.errors[0]?.line, 3);
  });

  it('refuses YAML aliases', () => {
    const r = validatePolicyText('name: &n platform\nversion: "1"\ndescription: *n\npolicies: []\n');
    assert.equal(r.ok, false);
  });

  it('formats issues as file:line:column lines', () => {
    const lines = formatValidationIssues('p.yaml', [{ line: 3, column: 5, path: '/effect', message: 'bad' }]);
    assert.deepEqual(lines, ['p.yaml:3:5: bad (at /effect)']);
  });
});
