import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { describe, it } from 'node:test';
import { canaryBucket, inPercentage, type RolloutConfig, selectCanary } from './canary.ts';

const ids = Array.from({ length: 4000 }, (_, i) => `wu_01h${String(i).padStart(23, '0')}`);

describe('canary selectors', () => {
  it('buckets a work unit id by the first four bytes of its SHA-256', () => {
    const id = 'wu_01hzzzzzzzzzzzzzzzzzzzzzzz';
    const expected = createHash('sha256').update(id).digest().readUInt32BE(0) % 10_000;
    assert.equal(canaryBucket(id), expected);
  });

  it('puts the same work unit in or out of a percentage canary every time', () => {
    for (const id of ids.slice(0, 200)) assert.equal(inPercentage(id, 10), inPercentage(id, 10));
  });

  it('selects roughly the configured share of work units', () => {
    const share = ids.filter((id) => inPercentage(id, 10)).length / ids.length;
    assert.ok(share > 0.08 && share < 0.12, `share was ${share}`);
  });

  it('grows a canary monotonically: everything in 5 % is also in 20 %', () => {
    for (const id of ids) if (inPercentage(id, 5)) assert.equal(inPercentage(id, 20), true);
  });

  it('never selects a work unit without an id for a partial percentage', () => {
    assert.equal(inPercentage(undefined, 50), false);
    assert.equal(inPercentage(undefined, 100), true);
  });

  it('uses the first matching rule, then the default', () => {
    const config: RolloutConfig = {
      default: { mode: 'observe', reducers: 'exact' },
      canaries: [
        { name: 'acme-semantic', match: { tenants: ['acme'], contracts: ['semantic'], work_unit_kinds: ['prompt_request'] }, mode: 'enforce', reducers: 'all' },
        { name: 'exact-everywhere', match: { contracts: ['exact_bytes'], namespaces: ['analytics'] }, mode: 'enforce', reducers: 'exact' },
      ],
    };
    const base = { tenant: 'acme', work_unit_kind: 'prompt_request', contract: 'semantic' };
    assert.equal(selectCanary(config, base).rule, 'acme-semantic');
    assert.equal(selectCanary(config, { ...base, tenant: 'globex' }).rule, null);
    assert.equal(selectCanary(config, { ...base, contract: 'exact_bytes', namespace: 'analytics' }).rule, 'exact-everywhere');
    assert.equal(selectCanary(config, { ...base, contract: 'exact_bytes' }).rule, null, 'a namespace selector needs a namespace');
    assert.deepEqual(selectCanary(config, { ...base, tenant: 'globex' }), { rule: null, mode: 'observe', reducers: 'exact' });
  });
});
