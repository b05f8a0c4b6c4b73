/** `svc report dashboard` and `svc report recommendations` (docs/reports.md). */
import type { Command } from 'commander';
import { clientFor, run } from '../runtime.ts';

/** Query string of the report filters; absent options are left out. */
export function reportQuery(o: { tenant?: string; from?: string; to?: string }): string {
  const q = new URLSearchParams();
  for (const k of ['tenant', 'from', 'to'] as const) if (o[k] !== undefined) q.set(k, o[k]!);
  const s = q.toString();
  return s === '' ? '' : `?${s}`;
}

export function register(program: Command): void {
  const report = program.command('report').description('reports computed from manifests and the ledger');
  const filters = (c: Command) => c.option('--tenant <tenant>').option('--from <iso>', 'ISO 8601 window start').option('--to <iso>', 'ISO 8601 window end (default now)');
  filters(report.command('dashboard').description('the dashboard: executive, platform, ai, data, security')).action((o, cmd: Command) =>
    run(cmd, async (g) => clientFor(g).json('GET', `/v1/reports/dashboard${reportQuery(o)}`)),
  );
  filters(report.command('recommendations').description('data-quality findings: duplicates, stale documents, unused logs, bloated prompts, repeated samples, unused models')).action((o, cmd: Command) =>
    run(cmd, async (g) => clientFor(g).json('GET', `/v1/reports/recommendations${reportQuery(o)}`)),
  );
}
