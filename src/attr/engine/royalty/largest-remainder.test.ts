import { test } from 'node:test';
import assert from 'node:assert/strict';
import { apportion, apportionInDecimal, apportionInSmallestUnits } from './largest-remainder.ts';
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

test('the integer split gives exactly the decimal split on random totals, scales and masses', () => {
  let seed = 12345;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const digits = (n: number) => Array.from({ length: n }, () => Math.floor(rand() * 10)).join('');
  let compared = 0;
  for (let k = 0; k < 3000; k++) {
    const scale = Math.floor(rand() * 8) + (rand() < 0.1 ? 10 : 0);
    const intPart = rand() < 0.3 ? '0' : `${1 + Math.floor(rand() * 9)}${digits(Math.floor(rand() * 12))}`;
    const frac = digits(Math.floor(rand() * (scale + 1)));
    const total = frac ? `${intPart}.${frac}` : intPart;
    const masses = Array.from({ length: 1 + Math.floor(rand() * 30) }, () => (rand() < 0.3 ? 0 : Math.floor(rand() * (rand() < 0.2 ? 5000 : 7))));
    const fast = apportionInSmallestUnits(total, masses, scale);
    let reference: string[] | undefined;
    try {
      reference = apportionInDecimal(total, masses, scale);
    } catch {
      reference = undefined;
    }
    assert.deepEqual(fast, reference, `${total} at scale ${scale} over ${masses.join(',')}`);
    if (fast) compared++;
  }
  assert.ok(compared > 2000);
});

test('totals the integer split does not take still split, or fail, as in decimal', () => {
  assert.equal(apportionInSmallestUnits('1.005', [1, 1], 2), undefined);
  assert.throws(() => apportion('1.005', [1, 1], 2), /more than 2 fraction digits/);
  assert.deepEqual(apportion('1.50', [1, 2], 1), apportionInDecimal('1.50', [1, 2], 1));
  assert.throws(() => apportion('1.00', [0, 0], 2), /zero mass/);
  assert.throws(() => apportion('1.00', [1, -1], 2), /non-negative/);
  assert.deepEqual(apportion('1'.repeat(40), [1, 2, 4], 2), apportionInDecimal('1'.repeat(40), [1, 2, 4], 2));
});
