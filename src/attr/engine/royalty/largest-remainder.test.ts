import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apportion } from './largest-remainder.ts';
import { allocate } from './allocation.ts';
import { parseGrossRevenue } from './gross-revenue.ts';

const sum = (xs: string[]) => xs.reduce((s, x) => s + Math.round(Number(x) * 100), 0);

test('ten split three ways gives 3.34, 3.33, 3.33 and sums exactly', () => {
  const parts = apportion('10.00', [1, 1, 1], 2);
  assert.deepEqual(parts, ['3.34', '3.33', '3.33']);
  assert.equal(sum(parts), 1000);
});

test('the leftover cent goes to the largest remainder, not the first party', () => {
  assert.deepEqual(apportion('1.00', [1, 2], 2), ['0.33', '0.67']);
});

test('zero revenue yields zero for everyone', () => {
  assert.deepEqual(apportion('0.00', [2, 1], 2), ['0.00', '0.00']);
});

test('allocation escrows unsupported claims and unpayable sources', () => {
  const a = allocate(
    [{ label: 'S1', payable: true }, { label: 'S2', payable: false }],
    [{ supported: true, sourceLabel: 'S1' }, { supported: true, sourceLabel: 'S2' }, { supported: false, sourceLabel: 'S1' }],
    '9.00',
    2,
  );
  assert.deepEqual(a.lines.map((l) => l.amount), ['3.00', '0.00']);
  assert.equal(a.escrow.amount, '6.00');
  assert.equal(a.escrow.weight, '0.666667');
});

test('gross revenue is parsed at its own scale, never below cents', () => {
  assert.deepEqual(parseGrossRevenue('10'), { amount: '10.00', scale: 2 });
  assert.deepEqual(parseGrossRevenue('0.125'), { amount: '0.125', scale: 3 });
  assert.throws(() => parseGrossRevenue('-0.01'), /must not be negative/);
  assert.throws(() => parseGrossRevenue('12,50'), /plain decimal/);
});
