import { test } from 'node:test';
import assert from 'node:assert/strict';
import { foldDigits, isNormalizedAnswerText, normalizeAnswerText } from './normalize.ts';

test('invisible controls are removed and compatibility forms folded (NFKC)', () => {
  assert.equal(normalizeAnswerText('ho\u200Bney \u202Egold\u202C \uFF3B\uFF11\uFF3D \uFB01ne soft\u00ADhyphen \u2066iso\u2069'), 'honey gold [1] fine softhyphen iso');
  assert.equal(normalizeAnswerText('plain ASCII stays as it is.'), 'plain ASCII stays as it is.');
});

test('a text is in normal form only without invisible controls and already NFKC', () => {
  assert.equal(isNormalizedAnswerText('Bees [1].'), true);
  assert.equal(isNormalizedAnswerText('Café [٩].'), true, 'NFKC keeps other scripts’ digits');
  assert.equal(isNormalizedAnswerText('Bees\u200B [1].'), false);
  assert.equal(isNormalizedAnswerText('Bees \uFF3B1\uFF3D.'), false);
});

test('decimal digits of any script fold to their ASCII value', () => {
  assert.equal(foldDigits('[٩] ۳ ९ ៣ ٠١٢٣٤٥٦٧٨٩'), '[9] 3 9 3 0123456789');
  assert.equal(foldDigits('no digits'), 'no digits');
});
