/**
 * Shape every benchmark suite returns, and the statistics helpers they share.
 * `npm run bench` (bench/run.ts) and the benchmark service (benchmark-service.ts)
 * add the environment and keep JSON + Markdown.
 */
import os from 'node:os';

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

/** Where a report was measured: every figure is only comparable with its anchors from the same run. */
export interface BenchEnvironment {
  node: string;
  platform: string;
  cpus: number;
  cpu_model: string;
  memory_gib: number;
  started_at: string;
  duration_s: number;
}

export function benchEnvironment(started: Date): BenchEnvironment {
  return {
    node: process.version,
    platform: `${os.platform()} ${os.arch()}`,
    cpus: os.cpus().length,
    cpu_model: os.cpus()[0]?.model ?? 'unknown',
    memory_gib: Math.round(os.totalmem() / 2 ** 30),
    started_at: started.toISOString(),
    duration_s: (Date.now() - started.getTime()) / 1000,
  };
}

/** The short human table kept beside the JSON (bench/results/<suite>.md, GET …/results?format=markdown). */
export function renderMarkdown(report: BenchReport, environment: BenchEnvironment): string {
  return [
    `# Benchmark ${report.suite}`,
    '',
    `${environment.started_at} · Node ${environment.node} · ${environment.cpus} × ${environment.cpu_model}`,
    '',
    `| ${report.table.columns.join(' | ')} |`,
    `|${report.table.columns.map(() => '---').join('|')}|`,
    ...report.table.rows.map((r) => `| ${r.map((c) => String(c).replaceAll('|', '\\|')).join(' | ')} |`),
    '',
    ...(report.notes ?? []).map((n) => `- ${n}`),
    '',
  ].join('\n');
}
