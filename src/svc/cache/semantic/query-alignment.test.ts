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
const similarity = (a: string, b: string) => {
  const r = judge(a, b);
  assert.ok(r.same, `refused "${a}" / "${b}": ${JSON.stringify(r)}`);
  return r.similarity;
};
const served = (a: string, b: string) => similarity(a, b) >= LEXICAL_SIMILARITY_THRESHOLD - 1e-9;

test('an intensifier or hedge ("really", "actually", "ever", degree "so") is a small step, even in a short question', () => {
  for (const [a, b] of [
    ['Do magnets really cure headaches?', 'Do magnets cure headaches?'],
    ['Did the moon landing actually happen?', 'Did the moon landing happen?'],
    ['What is the tallest tree ever measured?', 'What is the tallest tree measured?'],
    ['Why are bicycles so expensive?', 'Why are bicycles expensive?'],
    ['Why is rye bread so sour?', 'Why is rye bread very sour?'],
  ]) {
    assert.ok(served(a!, b!), `"${a}" / "${b}": ${similarity(a!, b!)}`);
    assert.ok(served(b!, a!), `"${b}" / "${a}"`);
  }
  // Still refused: what an intensifier sits next to.
  assert.equal(judge('Why are bicycles so expensive?', 'Why are bicycles so cheap?').same, false);
  assert.equal(judge('Do magnets really cure headaches?', 'Do magnets really cause headaches?').same, false);
  assert.equal(judge('Why is rye bread so sour?', 'Why is rye bread not sour?').same, false);
});

test('the partitive "of" after a quantifier is optional ("some of the" / "some", "all of the" / "all the")', () => {
  for (const [a, b] of [
    ['What are some of the best podcasts about history?', 'What are some best podcasts about history?'],
    ['Did all of the passengers survive the crash?', 'Did all the passengers survive the crash?'],
    ['Why do most of the startups in Lagos fail?', 'Why do most startups in Lagos fail?'],
  ]) {
    assert.ok(served(a!, b!), `"${a}" / "${b}": ${similarity(a!, b!)}`);
    assert.ok(served(b!, a!), `"${b}" / "${a}"`);
  }
  // Only after a quantifier: "of" elsewhere is a preposition, and the quantifier itself still counts.
  assert.ok(!served('What is the history of jazz?', 'What is the history jazz?'));
  assert.ok(!served('Did all of the passengers survive?', 'Did some of the passengers survive?'));
});

test('"How can I …?" asks what "How do I …?" asks, even in a short question; "can" elsewhere stays a modal', () => {
  for (const [a, b] of [
    ['How can I descale a kettle?', 'How do I descale a kettle?'],
    ['How can I stop snoring?', 'How do I stop snoring?'],
    ['How can a beginner start composting?', 'How does a beginner start composting?'],
  ]) {
    assert.ok(served(a!, b!), `"${a}" / "${b}": ${similarity(a!, b!)}`);
    assert.ok(served(b!, a!), `"${b}" / "${a}"`);
  }
  // A yes / no question about ability or permission is not a question about method.
  assert.ok(!served('Can I descale a kettle?', 'Do I descale a kettle?'));
  // Nor does it bridge a change of person or tense.
  assert.ok(!served('How can I stop snoring?', 'How do you stop snoring?'));
  assert.ok(!served('How can I stop snoring?', 'How did I stop snoring?'));
});
