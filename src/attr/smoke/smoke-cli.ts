/**
 * `attr-smoke <service|load|provider|security> [--corpus <path>] [--requests N] [--concurrency N]`.
 * Each suite starts the real service as a child process on a free port with a
 * temporary config, prints an attr-smoke-report/v1 JSON report, and exits 0
 * only when every check passed (1 otherwise, 2 on usage errors).
 */
import { Command, InvalidArgumentError } from 'commander';
import { runLoadSmoke } from './load-smoke.ts';
import { runProviderSmoke } from './provider-smoke.ts';
import { runSecuritySmoke } from './security-smoke.ts';
import { runServiceSmoke } from './service-smoke.ts';
import { SMOKE_SUITES, type SmokeReport, type SmokeSuite } from './smoke-report.ts';
import { parseCliArgs } from '../cli-parse.ts';

const SUITES: readonly SmokeSuite[] = SMOKE_SUITES;

function positiveInt(value: string): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new InvalidArgumentError('must be a positive integer');
  return n;
}

export async function runSmokeCli(argv: string[]): Promise<number> {
  const program = new Command('attr-smoke')
    .description(`Smoke-test the real attr service (suites: ${SUITES.join(', ')}).`)
    .argument('<suite>', SUITES.join(' | '))
    .option('--corpus <path>', 'corpus JSONL (default: examples/attr-corpus/corpus.jsonl)')
    .option('--requests <n>', 'load: number of requests', positiveInt)
    .option('--concurrency <n>', 'load: concurrent clients', positiveInt);
  const stop = parseCliArgs(program, argv);
  if (stop !== undefined) return stop;
  const suite = program.args[0] as SmokeSuite;
  if (!SUITES.includes(suite)) {
    process.stderr.write(`attr-smoke: unknown suite ${suite} (known: ${SUITES.join(', ')})\n`);
    return 2;
  }
  const o = program.opts<{ corpus?: string; requests?: number; concurrency?: number }>();
  const common = o.corpus ? { corpusPath: o.corpus } : {};
  let report: SmokeReport;
  try {
    switch (suite) {
      case 'service':
        report = await runServiceSmoke(common);
        break;
      case 'load':
        report = await runLoadSmoke({ ...common, ...(o.requests ? { requests: o.requests } : {}), ...(o.concurrency ? { concurrency: o.concurrency } : {}) });
        break;
      case 'provider':
        report = await runProviderSmoke(common);
        break;
      case 'security':
        report = await runSecuritySmoke(common);
        break;
    }
  } catch (err) {
    process.stderr.write(`attr-smoke ${suite}: ${(err as Error).message}\n`);
    return 1;
  }
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  return report.ok ? 0 : 1;
}
