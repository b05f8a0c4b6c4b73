import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EVAL_CASES } from './eval-cases.ts';
import { runEval } from './run-eval.ts';

test('the evaluation set covers supported, partial, unsupported and adversarial cases for the answer-visible rules', () => {
  const kinds = new Set(EVAL_CASES.map((c) => c.kind));
  assert.deepEqual([...kinds].sort(), ['adversarial', 'partially_supported', 'supported', 'unsupported']);
  const rules = new Set(EVAL_CASES.filter((c) => c.kind === 'adversarial').map((c) => c.rule));
  for (const rule of [1, 2, 4, 5, 8, 10, 14]) assert.ok(rules.has(rule), `no adversarial case for rule ${rule}`);
});

test('every labelled case gets its expected status and trips the rule it was written for', async () => {
  const score = await runEval();
  const misses = score.outcomes.filter((o) => o.status !== o.case.expected || !o.ruleHit).map((o) => `${o.case.id}: ${o.status} rules=${o.rules.join(',')}`);
  assert.deepEqual(misses, []);
  assert.equal(score.precision, 1);
  assert.equal(score.recall, 1);
});
