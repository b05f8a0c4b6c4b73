/**
 * `svc benchmark suites|run|get|list|results`: benchmark runs against a
 * running server (/v1/benchmarks, docs/benchmarks.md). `run` starts one,
 * follows its progress (a line on stderr when it is a terminal) and prints
 * the results: the Markdown table, or the JSON report with `--json`. Exit 1
 * when the run failed.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import type { BenchmarkRun } from '../../benchmarks/benchmark-run.ts';
import { SUITE_IDS } from '../../benchmarks/suite.ts';
import type { SvcClient } from '../client.ts';
import { clientFor, EXIT, run } from '../runtime.ts';

function integer(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

const POLL_MS = 1000;

async function follow(client: SvcClient, start: BenchmarkRun, stream: NodeJS.WriteStream = process.stderr): Promise<BenchmarkRun> {
  let current = start;
  let drawn = '';
  while (current.state === 'running') {
    await new Promise((r) => setTimeout(r, POLL_MS));
    current = (await client.json<{ run: BenchmarkRun }>('GET', `/v1/benchmarks/runs/${current.run_id}`)).run;
    const p = current.progress;
    const line = `${current.suite} ${current.run_id}: ${p.phase} (${p.step}/${p.steps})`;
    if (stream.isTTY && line !== drawn) {
      stream.write(`\r${line}\x1b[K`);
      drawn = line;
    }
  }
  if (drawn) stream.write('\n');
  return current;
}

export function register(program: Command): void {
  const benchmark = program.command('benchmark').description('benchmark suites run by the server against scratch storage, one at a time, at low priority (docs/benchmarks.md)');

  benchmark
    .command('suites')
    .description('list the suites, their figures and default budgets')
    .action((_o, cmd: Command) => run(cmd, async (g) => clientFor(g).json('GET', '/v1/benchmarks')));

  benchmark
    .command('run')
    .description('start a run, follow it, print its results (exit 1 if it fails)')
    .addOption(new Option('--suite <suite>', 'suite id').choices([...SUITE_IDS]).makeOptionMandatory())
    .option('--max-seconds <n>', "time budget in seconds (default: the suite's)", integer)
    .option('--max-bytes <n>', "object bytes budget (default: the suite's)", integer)
    .option('--no-wait', 'print the started run and return')
    .action((o: { suite: string; maxSeconds?: number; maxBytes?: number; wait: boolean }, cmd: Command) => {
      let failed = false;
      return run(
        cmd,
        async (g) => {
          const client = clientFor(g);
          const budget = { ...(o.maxSeconds !== undefined ? { max_seconds: o.maxSeconds } : {}), ...(o.maxBytes !== undefined ? { max_bytes: o.maxBytes } : {}) };
          const started = (await client.json<{ run: BenchmarkRun }>('POST', '/v1/benchmarks/runs', { suite: o.suite, ...(Object.keys(budget).length > 0 ? { budget } : {}) })).run;
          if (!o.wait) return { run: started };
          const ended = await follow(client, started);
          if (ended.state !== 'completed') {
            failed = true;
            return g.json ? { run: ended } : `benchmark run ${ended.run_id} ${ended.state}: ${ended.failure_reason ?? 'unknown reason'}`;
          }
          if (g.json) return { run: ended, results: await client.json('GET', `/v1/benchmarks/runs/${ended.run_id}/results`) };
          const md = await client.request('GET', `/v1/benchmarks/runs/${ended.run_id}/results?format=markdown`);
          return Buffer.from(md.raw ?? new Uint8Array()).toString('utf8');
        },
        () => (failed ? EXIT.failed : EXIT.ok),
      );
    });

  benchmark
    .command('get <id>')
    .description('show a run (state, progress, budget)')
    .action((id: string, _o, cmd: Command) => run(cmd, async (g) => clientFor(g).json('GET', `/v1/benchmarks/runs/${encodeURIComponent(id)}`)));

  benchmark
    .command('list')
    .description('runs, newest first; prints continuation_token when more follow')
    .option('--limit <n>', 'page size (1-100, default 20)', integer)
    .option('--continuation-token <id>')
    .action((o: { limit?: number; continuationToken?: string }, cmd: Command) =>
      run(cmd, async (g) => {
        const params = new URLSearchParams();
        if (o.limit !== undefined) params.set('limit', String(o.limit));
        if (o.continuationToken) params.set('continuation_token', o.continuationToken);
        return clientFor(g).json('GET', `/v1/benchmarks/runs${params.size > 0 ? `?${params}` : ''}`);
      }),
    );

  benchmark
    .command('results <id>')
    .description('results of a completed run: the Markdown table (the JSON report with --json)')
    .action((id: string, _o, cmd: Command) =>
      run(cmd, async (g) => {
        const client = clientFor(g);
        if (g.json) return client.json('GET', `/v1/benchmarks/runs/${encodeURIComponent(id)}/results`);
        const md = await client.request('GET', `/v1/benchmarks/runs/${encodeURIComponent(id)}/results?format=markdown`);
        return Buffer.from(md.raw ?? new Uint8Array()).toString('utf8');
      }),
    );
}
