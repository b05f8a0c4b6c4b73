import { test } from 'node:test';
import assert from 'node:assert/strict';
import { claimUnits } from './claim-units.ts';
import { isReferenceSentence } from './reference-sentence.ts';

const URI = 'https://www.example.edu/entomology/honeybee-foraging';

test('a sentence that only points at a work is a reference, not a claim unit', () => {
  for (const s of [`See [the bee study](${URI}).`, `See also ${URI}.`, `Source: [Apiary Institute report](${URI}) [1].`, `Read more in [the full paper](${URI}).`]) {
    assert.equal(isReferenceSentence(s), true, s);
  }
  assert.deepEqual(claimUnits(`Bees forage near the hive. See [the bee study](${URI}).`).map((u) => u.text), ['Bees forage near the hive.']);
});

test('link text that states something, or a sentence that says more than a lead-in, is a claim', () => {
  for (const s of [
    `See [honeybees produce gold](${URI}).`,
    `See [the study showing bees make gold](${URI}).`,
    `See [bees make gold, says the study](${URI}).`,
    `Read more in [the 2019 study](${URI}).`,
    `Bees make honey, see [the study](${URI}).`,
    'See the bee study.',
  ]) assert.equal(isReferenceSentence(s), false, s);
});
