/**
 * `svc gc [--dry-run]`: garbage collection on the server (POST /v1/admin/gc,
 * docs/objects.md#garbage-collection). Needs an admin key not bound to a
 * tenant. Prints the run's report: what was condemned, deleted and freed, or
 * with `--dry-run` what a run would do, changing nothing.
 */
import type { Command } from 'commander';
import type { GcReport } from '../../gc/gc-service.ts';
import { clientFor, run } from '../runtime.ts';

export function register(program: Command): void {
  program
    .command('gc')
    .description('garbage-collect unreferenced chunks, dead packs and abandoned multipart uploads (admin)')
    .option('--dry-run', 'report what a run would free; change nothing')
    .action((o: { dryRun?: boolean }, cmd: Command) =>
      run(cmd, async (g) => clientFor(g).json<{ result: GcReport }>('POST', '/v1/admin/gc', { dry_run: o.dryRun === true })),
    );
}
