import { test } from 'node:test';
import assert from 'node:assert/strict';
import { scanAnswer } from './answer-scan.ts';
import { MODEL_RELIANCE_PHRASES } from './model-reliance-phrases.ts';

test('every listed wording is found by its own pattern and by the answer scan, inside a longer sentence', () => {
  for (const phrase of MODEL_RELIANCE_PHRASES) {
    const re = new RegExp(phrase.pattern, 'iu');
    for (const example of phrase.examples) {
      assert.ok(re.test(example), `${phrase.id} does not match "${example}"`);
      const sentence = `Western honeybees forage within 3 kilometres of their hive; ${example} it.`;
      assert.ok(scanAnswer(sentence).modelRelianceMarkers.length > 0, `scan misses "${example}"`);
    }
  }
});

test('the issue 18 wordings are model-reliance claims', () => {
  for (const text of [
    'Western honeybees usually forage within 3 kilometres of their hive; I memorized this during pretraining.',
    'My reasoning: western honeybees usually forage within 3 kilometres of their hive.',
    'Internally, I know that western honeybees usually forage within 3 kilometres of their hive.',
  ]) assert.ok(scanAnswer(text).modelRelianceMarkers.length > 0, text);
});

test('ordinary answer sentences, including ones about models, memory and training, are not', () => {
  for (const text of [
    'Western honeybees usually forage within 3 kilometres of their hive.',
    'The climate model predicts warmer summers in the region.',
    'Bees remember the location of flowers for several days.',
    'Athletes improve through interval training.',
    'The study found that memory declines with age.',
    'Imagine a hive with 50,000 workers.',
    'Researchers know that corals expel their algae under heat stress.',
    'The assistant coach was hired in 2019.',
    'In the 2016 election the party won 40 seats.',
    'I-95 runs along the east coast.',
    'According to the survey, most residents own a car.',
    'The knowledge economy grew by 3 percent.',
    'Dogs were trained to detect the scent of truffles.',
    'The museum holds his memoirs and the weights he lifted.',
  ]) assert.deepEqual(scanAnswer(text).modelRelianceMarkers, [], text);
});
