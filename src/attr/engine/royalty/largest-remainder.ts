/**
 * Largest-remainder (Hamilton) apportionment in decimal arithmetic: splits a
 * total into parts proportional to integer masses so that the parts, at the
 * given scale, sum to the total exactly. Floors every exact share, then hands
 * the leftover smallest units to the largest fractional remainders; ties go
 * to the earlier party, so the split is deterministic.
 */
import { Decimal } from 'decimal.js';

const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_DOWN });

export function apportion(total: string, masses: readonly number[], scale: number): string[] {
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
