import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseRangeOption } from './range-option.ts';

test('--range accepts the three HTTP range forms written with a colon', () => {
  assert.deepEqual(parseRangeOption('0:99'), { start: 0, end: 99 });
  assert.deepEqual(parseRangeOption('100:'), { start: 100 });
  assert.deepEqual(parseRangeOption(':500'), { suffix: 500 });
});

test('--range refuses anything else', () => {
  for (const bad of [':', '1-2', 'a:b', '-1:5', '']) assert.throws(() => parseRangeOption(bad), /--range/, bad);
});
