/**
 * A point-in-time copy of svc's registry: every sample (counter series,
 * histogram `_bucket`/`_count`/`_sum` series) with its labels and value.
 * The in-process alert evaluator compares two snapshots the way Prometheus
 * compares two scrapes.
 */
import type { Registry } from 'prom-client';
import type { LabelMatch, Selector } from './alert-expr.ts';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export interface MetricSnapshot {
  at: number;
  samples: Sample[];
}

export async function takeSnapshot(registry: Registry, at: number): Promise<MetricSnapshot> {
  const metrics = await registry.getMetricsAsJSON();
  const samples: Sample[] = [];
  for (const m of metrics) {
    for (const v of m.values as Array<{ value: number; labels: Record<string, string | number>; metricName?: string }>) {
      samples.push({ name: v.metricName ?? m.name, labels: Object.fromEntries(Object.entries(v.labels).map(([k, x]) => [k, String(x)])), value: v.value });
    }
  }
  return { at, samples };
}

function matches(value: string | undefined, m: LabelMatch): boolean {
  if (typeof m === 'string') return value === m;
  if ('re' in m) return value !== undefined && new RegExp(`^(?:${m.re})$`).test(value);
  return value !== m.ne;
}

export function select(s: MetricSnapshot, sel: Selector, name = sel.metric): Sample[] {
  return s.samples.filter((x) => x.name === name && Object.entries(sel.labels ?? {}).every(([k, m]) => matches(x.labels[k], m)));
}

function key(x: Sample): string {
  return JSON.stringify(Object.entries(x.labels).sort());
}

/**
 * sum(increase(sel[window])) between `base` and `now`: per series, now minus
 * base (a series absent from base started at 0; a counter that went down
 * was reset, so its whole current value counts, as in Prometheus).
 */
export function sumIncrease(now: MetricSnapshot, base: MetricSnapshot, sel: Selector, name = sel.metric): number {
  const before = new Map(select(base, sel, name).map((x) => [key(x), x.value]));
  let total = 0;
  for (const x of select(now, sel, name)) {
    const b = before.get(key(x)) ?? 0;
    total += x.value >= b ? x.value - b : x.value;
  }
  return total;
}
