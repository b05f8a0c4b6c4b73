import assert from 'node:assert/strict';
import { test } from 'node:test';
import { nearestRank } from './percentile.ts';

test('nearest-rank p95 picks the smallest value with 95% at or below it', () => {
  const values = Array.from({ length: 20 }, (_, i) => 20 - i); // 20..1, unsorted input
  assert.equal(nearestRank(values, 95), 19);
  assert.equal(nearestRank([7], 95), 7);
  assert.equal(nearestRank([], 95), undefined);
  assert.equal(nearestRank([1, 2, 3, 4], 50), 2);
});
