/**
 * Shape every benchmark suite returns, and the statistics helpers they share.
 * The runner (bench/run.ts) adds the environment and writes JSON + Markdown.
 */
export interface BenchReport {
  suite: string;
  /** Machine-readable figures (medians, p95s, ratios, targets met). */
  results: Record<string, unknown>;
  /** A short human table for bench/results/<suite>.md. */
  table: { columns: string[]; rows: Array<Array<string | number>> };
  notes?: string[];
}

export type BenchSuite = (args: string[]) => Promise<BenchReport>;

export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const idx = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[idx]!;
}

export function summarize(samples: readonly number[]): { n: number; p50: number; p95: number; p99: number; mean: number } {
  const sorted = [...samples].sort((a, b) => a - b);
  const mean = sorted.reduce((s, x) => s + x, 0) / Math.max(1, sorted.length);
  return { n: sorted.length, p50: percentile(sorted, 50), p95: percentile(sorted, 95), p99: percentile(sorted, 99), mean };
}

export function round(x: number, digits = 3): number {
  const f = 10 ** digits;
  return Math.round(x * f) / f;
}
