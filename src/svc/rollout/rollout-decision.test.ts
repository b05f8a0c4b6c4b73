import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { RolloutConfig } from './canary.ts';
import { decideRollout, rolloutAllows } from './rollout-decision.ts';
import { DEFAULT_SWITCHES, type Switches } from './switches.ts';

const config: RolloutConfig = {
  default: { mode: 'observe', reducers: 'exact' },
  canaries: [{ name: 'acme', match: { tenants: ['acme'] }, mode: 'enforce', reducers: 'all' }],
};
const request = { tenant: 'acme', work_unit_kind: 'byte_object', contract: 'semantic', requested_mode: 'enforce' as const };
const sw = (over: Partial<Switches> = {}): Switches => ({ ...DEFAULT_SWITCHES, ...over });

describe('decideRollout', () => {
  it('takes mode and reducers from the canary', () => {
    const d = decideRollout(request, config, sw(), false);
    assert.equal(d.mode, 'enforce');
    assert.equal(d.reducers, 'all');
    assert.equal(rolloutAllows(d, 'semantic_summary'), true);
  });

  it('keeps a client in observe mode when it asks for observe', () => {
    assert.equal(decideRollout({ ...request, requested_mode: 'observe' }, config, sw(), false).mode, 'observe');
  });

  it('observes only outside the canary even when enforce is requested', () => {
    const d = decideRollout({ ...request, tenant: 'globex' }, config, sw(), false);
    assert.equal(d.mode, 'observe');
    assert.equal(rolloutAllows(d, 'semantic_summary'), false);
    assert.equal(rolloutAllows(d, 'zstd'), true);
  });

  it('bypass_optimisation turns every reducer off and observes', () => {
    const d = decideRollout(request, config, sw({ bypass_optimisation: true }), false);
    assert.equal(d.mode, 'observe');
    assert.equal(d.reducers, 'none');
    assert.equal(rolloutAllows(d, 'zstd'), false);
    assert.equal(rolloutAllows(d, 'hash'), true, 'hashing records; it never changes bytes');
  });

  it('force_exact_contract rewrites the contract and keeps exact reducers only', () => {
    const d = decideRollout(request, config, sw({ force_exact_contract: true }), false);
    assert.equal(d.contract, 'exact_bytes');
    assert.equal(rolloutAllows(d, 'semantic_summary'), false);
    assert.equal(rolloutAllows(d, 'content_defined_chunk'), true);
  });

  it('a tripped guardrail turns advanced reducers off but keeps the exact path and enforce', () => {
    const d = decideRollout(request, config, sw(), true);
    assert.equal(d.reducers, 'exact');
    assert.equal(d.mode, 'enforce');
    assert.equal(d.guardrail_tripped, true);
    assert.equal(rolloutAllows(d, 'context_compile'), false);
    assert.equal(rolloutAllows(d, 'zstd'), true);
  });

  it('disabled reducers and plugins are switched off by name', () => {
    const d = decideRollout(request, config, sw({ disabled_reducers: ['zstd'], disabled_plugins: ['vendor.summarizer'] }), false);
    assert.equal(rolloutAllows(d, 'zstd'), false);
    assert.equal(rolloutAllows(d, 'vendor.summarizer'), false);
    assert.equal(rolloutAllows(d, 'gzip'), true);
  });
});
