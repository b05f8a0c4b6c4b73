import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { DEFAULT_ROLLOUT_CONFIG, type RolloutConfig } from '../../rollout/canary.ts';
import { decideRollout, type RolloutDecision } from '../../rollout/rollout-decision.ts';
import { DEFAULT_SWITCHES, type Switches } from '../../rollout/switches.ts';
import type { PolicyDecision } from '../../policy/types.ts';
import { aiRolloutAllows } from './ai-rollout.ts';
import { gateReducer } from './reducer-gates.ts';

const BUNDLE = { id: 'pb_test', name: 'test', version: '1', hash: 'h' };

function decide(options: { switches?: Partial<Switches>; guardrail?: boolean; config?: RolloutConfig; contract?: string; mode?: 'observe' | 'enforce' } = {}): RolloutDecision {
  return decideRollout(
    { tenant: 'acme', work_unit_kind: 'prompt_request', contract: options.contract ?? 'semantic', work_unit_id: 'wu_1', requested_mode: options.mode ?? 'enforce' },
    options.config ?? DEFAULT_ROLLOUT_CONFIG,
    { ...DEFAULT_SWITCHES, ...options.switches },
    options.guardrail ?? false,
  );
}

const allow: PolicyDecision = { allow: true, reasons: [], matched_policy_ids: [], obligations: [], bundle: BUNDLE };
const deny: PolicyDecision = { allow: false, reasons: ['no compilation for finance'], matched_policy_ids: ['finance-exact'], obligations: [], bundle: BUNDLE };

function gate(rollout: RolloutDecision, reducer: 'exact_cache_lookup' | 'context_compile' | 'semantic_cache_lookup', extra: { policy?: PolicyDecision; clientBypass?: boolean; requestedContract?: string } = {}) {
  const contract = rollout.contract;
  return gateReducer({ reducer, rollout, requestedContract: extra.requestedContract ?? 'semantic', contract, mode: rollout.mode, policy: extra.policy ?? (reducer === 'exact_cache_lookup' ? undefined : allow), clientBypass: extra.clientBypass ?? false });
}

describe('AI reducers under the rollout decision', () => {
  test('with no rollout restriction every reducer runs', () => {
    const d = decide();
    for (const r of ['exact_cache_lookup', 'context_compile', 'semantic_cache_lookup'] as const) assert.deepEqual(gate(d, r), { status: 'planned' }, r);
  });

  test('the exact tier keeps the exact cache and skips the semantic reducers, with the rollout reasons as a denial', () => {
    const d = decide({ guardrail: true });
    assert.equal(aiRolloutAllows(d, 'exact_cache_lookup'), true);
    const compile = gate(d, 'context_compile');
    assert.equal(compile.status, 'skipped');
    assert.deepEqual(compile.status === 'skipped' ? compile.denial : undefined, {
      type: 'context_compile',
      reasons: ['rollout: rollout default; SLO guardrail tripped: advanced reducers off'],
      matched_policy_ids: [],
    });
  });

  test('bypass_optimisation skips every reducer, the exact cache included', () => {
    const d = decide({ switches: { bypass_optimisation: true } });
    assert.deepEqual([d.mode, d.reducers], ['observe', 'none']);
    const exact = gate(d, 'exact_cache_lookup');
    assert.equal(exact.status === 'skipped' && exact.reason, 'rollout: rollout default; switch bypass_optimisation is on');
  });

  test('a reducer is switched off by its plan name or by its family name', () => {
    for (const name of ['semantic_cache_lookup', 'semantic_cache']) {
      const g = gate(decide({ switches: { disabled_reducers: [name] } }), 'semantic_cache_lookup');
      assert.equal(g.status === 'skipped' && g.reason, "rollout: reducer 'semantic_cache_lookup' is switched off (disable_reducer)", name);
    }
    assert.equal(gate(decide({ switches: { disabled_reducers: ['semantic_cache'] } }), 'context_compile').status, 'planned');
  });

  test('force_exact_contract skips the semantic reducers of a semantic request as a rollout denial; an exact request just has none', () => {
    const forced = gate(decide({ switches: { force_exact_contract: true } }), 'context_compile');
    assert.match(forced.status === 'skipped' ? (forced.denial?.reasons.join() ?? '') : '', /^rollout: .*force_exact_contract/);
    const exact = gate(decide({ contract: 'exact_bytes' }), 'context_compile', { requestedContract: 'exact_bytes' });
    assert.deepEqual(exact, { status: 'skipped', reason: 'contract is exact_bytes: the prompt passes unchanged' });
  });

  test('policy is checked before the rollout: a policy deny is recorded with its reasons and policy ids', () => {
    const g = gate(decide({ guardrail: true }), 'context_compile', { policy: deny });
    assert.deepEqual(g.status === 'skipped' ? g.denial : undefined, { type: 'context_compile', reasons: ['no compilation for finance'], matched_policy_ids: ['finance-exact'] });
  });

  test('the client\'s own cache bypass is not recorded as a denial', () => {
    assert.deepEqual(gate(decide(), 'exact_cache_lookup', { clientBypass: true }), { status: 'skipped', reason: 'svc.cache is bypass' });
  });

  test('a canary stage in observe mode plans the reducers it allows as measured, not applied', () => {
    const config: RolloutConfig = { default: { mode: 'observe', reducers: 'all' }, canaries: [] };
    assert.deepEqual(gate(decide({ config }), 'context_compile'), { status: 'planned', reason: 'observe: measured, not applied' });
  });
});
