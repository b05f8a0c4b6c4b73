/**
 * The in-process reading of an alert expression (alert-expr.ts): the same
 * formula as the PromQL, over two snapshots of svc's registry `window`
 * apart. Returns the value of the left-hand side and whether the condition
 * holds.
 */
import type { AlertExpr } from './alert-expr.ts';
import { type MetricSnapshot, select, sumIncrease } from './metric-snapshot.ts';

export interface ExprResult {
  holds: boolean;
  /** The left-hand side (an increase, a ratio or a quantile); null when the guard (minimum volume) is not met. */
  value: number | null;
}

/** Prometheus' histogram_quantile over cumulative bucket increases (linear within a bucket). */
export function histogramQuantile(q: number, buckets: Array<{ le: number; count: number }>): number | null {
  const sorted = [...buckets].sort((a, b) => a.le - b.le);
  const total = sorted.at(-1)?.count ?? 0;
  if (total === 0) return null;
  const rank = q * total;
  let prevLe = 0;
  let prevCount = 0;
  for (const b of sorted) {
    if (b.count >= rank) {
      if (b.le === Infinity) return prevLe;
      return prevLe + ((b.le - prevLe) * (rank - prevCount)) / Math.max(b.count - prevCount, Number.EPSILON);
    }
    prevLe = b.le;
    prevCount = b.count;
  }
  return prevLe;
}

export function evaluateExpr(e: AlertExpr, now: MetricSnapshot, base: MetricSnapshot): ExprResult {
  switch (e.op) {
    case 'increase_gt': {
      const v = sumIncrease(now, base, e.sel);
      return { holds: v > e.threshold, value: v };
    }
    case 'ratio': {
      const den = e.den.reduce((a, s) => a + sumIncrease(now, base, s), 0);
      if (den < e.min_den || den === 0) return { holds: false, value: null };
      const v = e.num.reduce((a, s) => a + sumIncrease(now, base, s), 0) / den;
      return { holds: e.cmp === '<' ? v < e.threshold : v > e.threshold, value: v };
    }
    case 'difference_gt': {
      const v = sumIncrease(now, base, e.a) - sumIncrease(now, base, e.b);
      return { holds: v > e.threshold, value: v };
    }
    case 'quantile_gt': {
      const count = sumIncrease(now, base, { metric: e.histogram }, `${e.histogram}_count`);
      if (count < e.min_count || count === 0) return { holds: false, value: null };
      const les = new Set(select(now, { metric: e.histogram }, `${e.histogram}_bucket`).map((x) => x.labels.le!));
      const buckets = [...les].map((le) => ({ le: le === '+Inf' ? Infinity : Number(le), count: sumIncrease(now, base, { metric: e.histogram, labels: { le } }, `${e.histogram}_bucket`) }));
      const v = histogramQuantile(e.q, buckets);
      return { holds: v !== null && v > e.threshold, value: v };
    }
  }
}
