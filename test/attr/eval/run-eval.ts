/**
 * Runs the labelled evaluation set through the engine and scores it. "Ready"
 * is the positive class: precision is the share of responses the engine
 * marked ready that a reviewer would also mark ready; recall is the share
 * of reviewer-ready answers the engine let through. Blocked cases must also
 * trip the rule they were written for.
 */
import { loadCorpus, createAttributionEngine } from '../../../src/attr/engine/index.ts';
import { EVAL_CASES, type EvalCase } from './eval-cases.ts';

export const EXAMPLE_CORPUS = new URL('../../../examples/attr-corpus/corpus.jsonl', import.meta.url).pathname;

export interface EvalOutcome {
  case: EvalCase;
  status: 'ready' | 'blocked';
  rules: number[];
  ruleHit: boolean;
}

export interface EvalScore {
  outcomes: EvalOutcome[];
  truePositive: number;
  falsePositive: number;
  falseNegative: number;
  trueNegative: number;
  precision: number;
  recall: number;
  ruleHitRate: number;
}

export async function runEval(cases: readonly EvalCase[] = EVAL_CASES): Promise<EvalScore> {
  const engine = createAttributionEngine(await loadCorpus(EXAMPLE_CORPUS));
  const outcomes = cases.map((c, i) => {
    const r = engine.attribute({
      prompt: 'evaluation',
      output: c.output,
      grossRevenue: '10.00',
      context: { eventId: `evt_eval_${i}`, requestId: `req_eval_${i}`, operator: 'eval', createdAt: '2025-01-01T00:00:00Z' },
    });
    const rules = r.source_footer.blocking_rules;
    const ruleHit = c.expected === 'ready' ? r.status === 'ready' : c.rule === undefined || rules.includes(c.rule);
    return { case: c, status: r.status, rules, ruleHit };
  });
  const count = (expected: string, got: string) => outcomes.filter((o) => o.case.expected === expected && o.status === got).length;
  const tp = count('ready', 'ready');
  const fp = count('blocked', 'ready');
  const fn = count('ready', 'blocked');
  const tn = count('blocked', 'blocked');
  return {
    outcomes,
    truePositive: tp,
    falsePositive: fp,
    falseNegative: fn,
    trueNegative: tn,
    precision: tp + fp === 0 ? 1 : tp / (tp + fp),
    recall: tp + fn === 0 ? 1 : tp / (tp + fn),
    ruleHitRate: outcomes.filter((o) => o.ruleHit).length / outcomes.length,
  };
}
