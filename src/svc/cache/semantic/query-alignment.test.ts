/**
 * Decision 204: rewordings the built-in judgement (lexical-align@5) serves that @4 held below its threshold, each
 * written for this test (not taken from any data set), and the near-topic changes it must still refuse.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { LEXICAL_SIMILARITY_THRESHOLD } from './embedder.ts';
import { alignQueries } from './query-alignment.ts';
import { normaliseQuery } from './query-normaliser.ts';

const judge = (a: string, b: string) => alignQueries(normaliseQuery(a), normaliseQuery(b));
/** Served at the shipped threshold: not refused, and similar enough. */
const served = (a: string, b: string) => {
  const r = judge(a, b);
  return r.same && r.similarity >= LEXICAL_SIMILARITY_THRESHOLD - 1e-9;
};

/** Each pair is served, asked either way round. */
function assertServedBothWays(pairs: ReadonlyArray<readonly [string, string]>): void {
  for (const [a, b] of pairs) {
    assert.ok(served(a, b), `"${a}" / "${b}": ${JSON.stringify(judge(a, b))}`);
    assert.ok(served(b, a), `"${b}" / "${a}": ${JSON.stringify(judge(b, a))}`);
  }
}

test('an intensifier or hedge ("really", "actually", "ever", degree "so") is a small step, even in a short question', () => {
  assertServedBothWays([
    ['Do magnets really cure headaches?', 'Do magnets cure headaches?'],
    ['Did the moon landing actually happen?', 'Did the moon landing happen?'],
    ['What is the tallest tree ever measured?', 'What is the tallest tree measured?'],
    ['Why are bicycles so expensive?', 'Why are bicycles expensive?'],
    ['Why is rye bread so sour?', 'Why is rye bread very sour?'],
  ]);
  // Still refused: what an intensifier sits next to.
  assert.equal(judge('Why are bicycles so expensive?', 'Why are bicycles so cheap?').same, false);
  assert.equal(judge('Do magnets really cure headaches?', 'Do magnets really cause headaches?').same, false);
  assert.equal(judge('Why is rye bread so sour?', 'Why is rye bread not sour?').same, false);
});

test('the partitive "of" after a quantifier is optional ("some of the" / "some", "all of the" / "all the")', () => {
  assertServedBothWays([
    ['What are some of the best podcasts about history?', 'What are some best podcasts about history?'],
    ['Did all of the passengers survive the crash?', 'Did all the passengers survive the crash?'],
    ['Why do most of the startups in Lagos fail?', 'Why do most startups in Lagos fail?'],
  ]);
  // Only after a quantifier: "of" elsewhere is a preposition, and the quantifier itself still counts.
  assert.ok(!served('What is the history of jazz?', 'What is the history jazz?'));
  assert.ok(!served('Did all of the passengers survive?', 'Did some of the passengers survive?'));
});

test('"How can I …?" asks what "How do I …?" asks, even in a short question; "can" elsewhere stays a modal', () => {
  assertServedBothWays([
    ['How can I descale a kettle?', 'How do I descale a kettle?'],
    ['How can I stop snoring?', 'How do I stop snoring?'],
    ['How can a beginner start composting?', 'How does a beginner start composting?'],
  ]);
  // A yes / no question about ability or permission is not a question about method.
  assert.ok(!served('Can I descale a kettle?', 'Do I descale a kettle?'));
  // Nor does it bridge a change of person or tense.
  assert.ok(!served('How can I stop snoring?', 'How do you stop snoring?'));
  assert.ok(!served('How can I stop snoring?', 'How did I stop snoring?'));
});
