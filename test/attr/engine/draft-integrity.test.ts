/**
 * The engine takes its own draft footer's integrity (handles, rendering,
 * span hashes) as given when it runs the display rules, because it built the
 * draft from the same rows in the same call. These tests show that
 * re-deriving all of it, as the verifiers do, changes nothing.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createAttributionEngine, loadCorpus, parseCorpus } from '../../../src/attr/engine/index.ts';
import { syntheticCorpusText } from '../../../src/attr/corpus/synthetic-corpus.ts';
import { EVAL_CASES } from '../eval/eval-cases.ts';
import { EXAMPLE_CORPUS } from '../eval/run-eval.ts';
import { context } from './fixtures.ts';

test('every labelled case gets the same response whether or not the draft integrity is re-derived', async () => {
  const corpus = await loadCorpus(EXAMPLE_CORPUS);
  const trusting = createAttributionEngine(corpus);
  const rederiving = createAttributionEngine(corpus, { rederiveDraftIntegrity: true });
  const outputs = [...EVAL_CASES.map((c) => c.output), undefined];
  let blocked = 0;
  outputs.forEach((output, i) => {
    const input = { prompt: 'How far do honeybees forage?', ...(output === undefined ? {} : { output }), grossRevenue: '10.00', context: context(i) };
    const expected = rederiving.attribute(input);
    assert.deepEqual(trusting.attribute(input), expected);
    if (expected.status === 'blocked') blocked++;
  });
  assert.ok(blocked > 5 && blocked < outputs.length, 'the set holds both ready and blocked responses');
});

test('answers built from a synthetic corpus, with negations, changed figures, hedges and citations, agree too', () => {
  const text = syntheticCorpusText(150, 11);
  const corpus = parseCorpus(text);
  const trusting = createAttributionEngine(corpus);
  const rederiving = createAttributionEngine(corpus, { rederiveDraftIntegrity: true });
  const sentences = corpus.sources.flatMap((s) => s.chunks.flatMap((c) => c.text.split(/(?<=\.) /)));
  const edits = [
    (s: string) => s,
    (s: string) => s.replace(/^(\S+ \S+)/, '$1 not'),
    (s: string) => s.replace(/\d+/, (d) => String(Number(d) + 3)),
    (s: string) => `It may be that ${s[0]!.toLowerCase()}${s.slice(1)}`,
    (s: string) => `${s.slice(0, -1)} [2].`,
    (s: string) => `All ${s[0]!.toLowerCase()}${s.slice(1)}`,
  ];
  for (let k = 0; k < 12; k++) {
    const output = Array.from({ length: 6 }, (_, j) => edits[(k + j) % edits.length]!(sentences[(k * 37 + j * 11) % sentences.length]!)).join(' ');
    const input = { prompt: 'p', output, grossRevenue: '7.00', context: context(100 + k) };
    assert.deepEqual(trusting.attribute(input), rederiving.attribute(input));
  }
});

test('a retrieval depth below 1 is refused when the engine is built, not at the first attribution', async () => {
  const corpus = await loadCorpus(EXAMPLE_CORPUS);
  for (const retrievalDepth of [0, -1, 2.5]) {
    assert.throws(() => createAttributionEngine(corpus, { retrievalDepth }), /retrievalDepth must be a positive integer/);
  }
  assert.equal(createAttributionEngine(corpus, { retrievalDepth: 1 }).attribute({ prompt: 'How far do honeybees forage?', grossRevenue: '1.00', context: context(0) }).schema, 'attr-service-attribution-response/v1');
});
