/**
 * Largest-remainder (Hamilton) apportionment in decimal arithmetic: splits a
 * total into parts proportional to integer masses so that the parts, at the
 * given scale, sum to the total exactly. Floors every exact share, then hands
 * the leftover smallest units to the largest fractional remainders; ties go
 * to the earlier party, so the split is deterministic.
 *
 * Amounts of ordinary size are split in exact integer arithmetic (smallest
 * units: plain numbers while every product stays below 2^53, else BigInt);
 * anything else goes through decimal.js. All give the same strings: see
 * `apportionInSmallestUnits`.
 */
import { Decimal } from 'decimal.js';

const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_DOWN });

/** Plain totals of at most 25 integer and 18 fraction digits (the revenue parser allows 21 and 18). */
const PLAIN_TOTAL = /^(0|[1-9]\d{0,24})(?:\.(\d{1,18}))?$/;
const MAX_MASS_SUM = 1_000_000;
const MAX_SCALE = 18;

export function apportion(total: string, masses: readonly number[], scale: number): string[] {
  return apportionInSmallestUnits(total, masses, scale) ?? apportionInDecimal(total, masses, scale);
}

/**
 * The same split in BigInt smallest units, for plain totals, scales up to 18
 * and mass sums up to a million; `undefined` outside that range. Equivalent
 * to the decimal.js version there: its 60 significant digits hold every
 * exact share (at most 10^43 units times 10^6) with at least 11 fraction
 * digits, so its floors are exact and its remainders, which are multiples of
 * 1/massSum ≥ 10^-6 apart, order exactly like the integer remainders below.
 */
export function apportionInSmallestUnits(total: string, masses: readonly number[], scale: number): string[] | undefined {
  const m = PLAIN_TOTAL.exec(total);
  if (!m || !Number.isInteger(scale) || scale < 0 || scale > MAX_SCALE) return undefined;
  let massSum = 0;
  for (const mass of masses) {
    if (!Number.isInteger(mass) || mass < 0) return undefined;
    massSum += mass;
  }
  if (massSum > MAX_MASS_SUM) return undefined;
  const fraction = (m[2] ?? '').replace(/0+$/, '');
  if (fraction.length > scale) return undefined; // not whole smallest units: the decimal path throws the error
  const unit = 10n ** BigInt(scale);
  const units = BigInt(m[1]!) * unit + BigInt(fraction.padEnd(scale, '0') || '0');
  const format = (x: bigint): string => (scale === 0 ? x.toString() : `${x / unit}.${(x % unit).toString().padStart(scale, '0')}`);
  if (massSum === 0) return units === 0n ? masses.map(() => format(0n)) : undefined;
  const sum = BigInt(massSum);
  if (units * sum <= MAX_SAFE) return splitSafeIntegers(Number(units), masses, massSum, scale);
  const floors = masses.map((mass) => (units * BigInt(mass)) / sum);
  const remainders = masses.map((mass) => (units * BigInt(mass)) % sum);
  let leftover = units - floors.reduce((a, b) => a + b, 0n);
  const order = masses.map((_, i) => i).sort((a, b) => (remainders[b]! > remainders[a]! ? 1 : remainders[b]! < remainders[a]! ? -1 : a - b));
  for (const i of order) {
    if (leftover <= 0n) break;
    floors[i] = floors[i]! + 1n;
    leftover--;
  }
  return floors.map(format);
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * The BigInt split in plain numbers, when units · massSum < 2^53: every
 * product, remainder and quotient below is then an exact integer (the
 * quotient is taken as (a - a % b) / b, which divides exactly).
 */
function splitSafeIntegers(units: number, masses: readonly number[], massSum: number, scale: number): string[] {
  const floors = masses.map((mass) => {
    const a = units * mass;
    return (a - (a % massSum)) / massSum;
  });
  const remainders = masses.map((mass) => (units * mass) % massSum);
  let leftover = units - floors.reduce((a, b) => a + b, 0);
  const order = masses.map((_, i) => i).sort((a, b) => remainders[b]! - remainders[a]! || a - b);
  for (const i of order) {
    if (leftover <= 0) break;
    floors[i] = floors[i]! + 1;
    leftover--;
  }
  const unit = 10 ** scale; // exact for scale ≤ 22
  return floors.map((x) => {
    if (scale === 0) return String(x);
    const fraction = x % unit;
    return `${(x - fraction) / unit}.${String(fraction).padStart(scale, '0')}`;
  });
}

/** The decimal.js split: the reference, and the path for totals, scales or masses outside the integer fast path. */
export function apportionInDecimal(total: string, masses: readonly number[], scale: number): string[] {
  const unit = new D(10).pow(scale);
  const units = new D(total).mul(unit);
  if (!units.isInteger()) throw new RangeError(`total ${total} has more than ${scale} fraction digits`);
  const massSum = masses.reduce((s, m) => s + m, 0);
  if (masses.some((m) => !Number.isInteger(m) || m < 0)) throw new RangeError('masses must be non-negative integers');
  if (massSum === 0) {
    if (!units.isZero()) throw new RangeError('cannot apportion a non-zero total over zero mass');
    return masses.map(() => new D(0).toFixed(scale));
  }
  const exact = masses.map((m) => units.mul(m).div(massSum));
  const floors = exact.map((x) => x.floor());
  let leftover = units.sub(floors.reduce((s, x) => s.add(x), new D(0))).toNumber();
  const order = exact
    .map((x, i) => ({ i, rem: x.sub(floors[i]!) }))
    .sort((a, b) => b.rem.comparedTo(a.rem) || a.i - b.i);
  for (const { i } of order) {
    if (leftover <= 0) break;
    floors[i] = floors[i]!.add(1);
    leftover--;
  }
  return floors.map((x) => x.div(unit).toFixed(scale));
}
