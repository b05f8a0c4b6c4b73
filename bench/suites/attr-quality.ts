/**
 * attr-quality: precision and recall of `ready` (the positive class) on the
 * labelled evaluation set (test/attr/eval/eval-cases.ts) over the example
 * corpus, plus the share of blocked cases that trip the rule they target.
 * Baseline in the same run: a support-score-only gate (ready when every
 * claim's support ≥ the minimum), which shows what the other display rules
 * add.
 *
 * `npm run bench -- attr-quality`
 */
import { createAttributionEngine, loadCorpus } from '../../src/attr/engine/index.ts';
import { DEFAULT_ACCEPTANCE_POLICY } from '../../src/attr/verify/acceptance-policy.ts';
import { EVAL_CASES } from '../../test/attr/eval/eval-cases.ts';
import { EXAMPLE_CORPUS, runEval } from '../../test/attr/eval/run-eval.ts';
import type { BenchReport } from '../report.ts';
import { round } from '../report.ts';

export default async function run(): Promise<BenchReport> {
  const score = await runEval();
  const engine = createAttributionEngine(await loadCorpus(EXAMPLE_CORPUS));
  let tp = 0, fp = 0, fn = 0;
  EVAL_CASES.forEach((c, i) => {
    const r = engine.attribute({ prompt: 'eval', output: c.output, grossRevenue: '10.00', context: { eventId: `evt_q_${i}`, requestId: `req_q_${i}`, operator: 'eval', createdAt: '2025-01-01T00:00:00Z' } });
    const rows = r.source_footer.claim_rows;
    const baselineReady = rows.length > 0 && rows.every((row) => row.support_score >= DEFAULT_ACCEPTANCE_POLICY.min_support_score);
    if (baselineReady && c.expected === 'ready') tp++;
    else if (baselineReady) fp++;
    else if (c.expected === 'ready') fn++;
  });
  const baseline = { precision: tp + fp === 0 ? 1 : tp / (tp + fp), recall: tp + fn === 0 ? 1 : tp / (tp + fn) };
  const byKind = new Map<string, { n: number; correct: number }>();
  for (const o of score.outcomes) {
    const k = byKind.get(o.case.kind) ?? { n: 0, correct: 0 };
    k.n++;
    if (o.status === o.case.expected && o.ruleHit) k.correct++;
    byKind.set(o.case.kind, k);
  }
  const misses = score.outcomes.filter((o) => o.status !== o.case.expected || !o.ruleHit).map((o) => o.case.id);
  return {
    suite: 'attr-quality',
    results: {
      cases: score.outcomes.length,
      ready_precision: round(score.precision),
      ready_recall: round(score.recall),
      true_positive: score.truePositive,
      false_positive: score.falsePositive,
      false_negative: score.falseNegative,
      true_negative: score.trueNegative,
      rule_hit_rate: round(score.ruleHitRate),
      by_kind: Object.fromEntries(byKind),
      misses,
      baseline_support_only: { precision: round(baseline.precision), recall: round(baseline.recall) },
    },
    table: {
      columns: ['gate', 'precision (ready)', 'recall (ready)', 'cases'],
      rows: [
        ['attr engine (15 display rules)', round(score.precision), round(score.recall), score.outcomes.length],
        ['baseline: support score only', round(baseline.precision), round(baseline.recall), score.outcomes.length],
        ...[...byKind].map(([kind, k]) => [`  ${kind}: correct`, `${k.correct}/${k.n}`, '', '']),
      ],
    },
    notes: [
      'Labelled set written by the engine author against the example corpus: it checks the rules do what they say, it is not an independent benchmark of real model output.',
      misses.length === 0 ? 'No misses.' : `Misses: ${misses.join(', ')}`,
    ],
  };
}
