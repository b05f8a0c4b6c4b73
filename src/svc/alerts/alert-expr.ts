/**
 * The small expression language alerts are written in. One definition has
 * two readings: `toPromQL` renders it for Prometheus (deploy/prometheus/
 * svc-alerts.yml) and `evaluate-expr.ts` computes the same thing in process
 * from snapshots of svc's own registry. Only what the 15 spec alerts need.
 */

export type LabelMatch = string | { re: string } | { ne: string };

export interface Selector {
  metric: string;
  labels?: Record<string, LabelMatch>;
}

export type AlertExpr =
  /** sum(increase(sel[window])) > threshold */
  | { op: 'increase_gt'; sel: Selector; window: string; threshold: number }
  /** sum(increase(num)) / sum(increase(den)) compared with threshold, only when sum(increase(den)) >= min_den */
  | { op: 'ratio'; num: Selector[]; den: Selector[]; cmp: '<' | '>'; window: string; threshold: number; min_den: number }
  /** sum(increase(a)) - sum(increase(b)) > threshold */
  | { op: 'difference_gt'; a: Selector; b: Selector; window: string; threshold: number }
  /** histogram_quantile(q, sum by (le) (rate(metric_bucket[window]))) > threshold, only with at least min_count observations */
  | { op: 'quantile_gt'; histogram: string; q: number; window: string; threshold: number; min_count: number };

export function windowSeconds(w: string): number {
  const m = /^(\d+)([smhd])$/.exec(w);
  if (!m) throw new Error(`bad window ${w}`);
  return Number(m[1]) * { s: 1, m: 60, h: 3600, d: 86_400 }[m[2] as 's' | 'm' | 'h' | 'd'];
}

function labels(sel: Selector, extra = ''): string {
  const parts = Object.entries(sel.labels ?? {}).map(([k, v]) => (typeof v === 'string' ? `${k}="${v}"` : 're' in v ? `${k}=~"${v.re}"` : `${k}!="${v.ne}"`));
  if (extra) parts.push(extra);
  return parts.length === 0 ? '' : `{${parts.join(',')}}`;
}

const inc = (sel: Selector, w: string) => `increase(${sel.metric}${labels(sel)}[${w}])`;
const sumInc = (sels: Selector[], w: string) => sels.map((s) => `sum(${inc(s, w)} or vector(0))`).join(' + ');

export function toPromQL(e: AlertExpr): string {
  switch (e.op) {
    case 'increase_gt':
      return `sum(${inc(e.sel, e.window)}) > ${e.threshold}`;
    case 'ratio': {
      const den = `(${sumInc(e.den, e.window)})`;
      return `((${sumInc(e.num, e.window)}) / ${den} ${e.cmp} ${e.threshold}) and ${den} >= ${e.min_den}`;
    }
    case 'difference_gt':
      return `(sum(${inc(e.a, e.window)} or vector(0)) - sum(${inc(e.b, e.window)} or vector(0))) > ${e.threshold}`;
    case 'quantile_gt': {
      const count = `sum(increase(${e.histogram}_count[${e.window}]))`;
      return `(histogram_quantile(${e.q}, sum by (le) (rate(${e.histogram}_bucket[${e.window}]))) > ${e.threshold}) and ${count} >= ${e.min_count}`;
    }
  }
}
