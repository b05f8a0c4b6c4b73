/**
 * `svc chunks migrate [--dry-run]`: copies chunks of the old one-file-per-chunk
 * layout into packs on the server (POST /v1/admin/chunks/migrate,
 * docs/chunking.md#migrating-the-old-layout). Needs an admin key not bound to
 * a tenant. Prints the run's report; `--dry-run` counts what a run would
 * migrate and changes nothing.
 */
import type { Command } from 'commander';
import type { ChunkMigrationReport } from '../../chunk-store/chunk-migration.ts';
import { clientFor, run } from '../runtime.ts';

export function register(program: Command): void {
  const chunks = program.command('chunks').description('chunk store maintenance (admin)');
  chunks
    .command('migrate')
    .description('copy old one-file-per-chunk chunks into packs; old files are removed only after their pack and index are durable (idempotent)')
    .option('--dry-run', 'count what a run would migrate; change nothing')
    .action((o: { dryRun?: boolean }, cmd: Command) =>
      run(cmd, async (g) => clientFor(g).json<{ result: ChunkMigrationReport }>('POST', '/v1/admin/chunks/migrate', { dry_run: o.dryRun === true })),
    );
}
