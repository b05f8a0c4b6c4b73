/**
 * `svc adapter …`: the workload adapters (docs/adapters.md). Thin: read a
 * file when one is named, call `/v1/adapters/...`, print.
 *
 *   svc adapter list
 *   svc adapter lakehouse put <file.parquet> --table sales/orders --bucket lake --key orders/v3.parquet
 *   svc adapter lakehouse tables | versions <table> | duplicates
 */
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { clientFor, run } from '../runtime.ts';

const tenantOf = (o: { tenant?: string }) => (o.tenant ? { tenant: o.tenant } : {});
const fileBase64 = (file: string) => readFileSync(file).toString('base64');

export function register(program: Command): void {
  const adapter = program.command('adapter').description('workload adapters: lakehouse, stream, training (docs/adapters.md)');
  adapter
    .command('list')
    .description('adapters with their status')
    .action((_o: unknown, cmd: Command) => run(cmd, (g) => clientFor(g).json('GET', '/v1/adapters')));

  const lake = adapter.command('lakehouse').description('Parquet tables: exact bytes plus logical facts');
  lake
    .command('put <file>')
    .description('store a Parquet file as the next version of a table')
    .requiredOption('--table <name>', 'table name, e.g. sales/orders')
    .requiredOption('--bucket <bucket>', 'object bucket')
    .requiredOption('--key <key>', 'object key')
    .option('--tenant <tenant>')
    .action((file: string, o: { table: string; bucket: string; key: string; tenant?: string }, cmd: Command) =>
      run(cmd, (g) => clientFor(g).json('POST', '/v1/adapters/lakehouse/tables', { ...tenantOf(o), table: o.table, bucket: o.bucket, key: o.key, body_base64: fileBase64(file) })),
    );
  lake
    .command('tables')
    .description('latest version of each table')
    .option('--tenant <tenant>')
    .action((o: { tenant?: string }, cmd: Command) => run(cmd, (g) => clientFor(g).json('POST', '/v1/adapters/lakehouse/tables/list', tenantOf(o))));
  lake
    .command('versions <table>')
    .description('every version of a table with its logical facts')
    .option('--tenant <tenant>')
    .action((table: string, o: { tenant?: string }, cmd: Command) => run(cmd, (g) => clientFor(g).json('POST', '/v1/adapters/lakehouse/tables/versions', { ...tenantOf(o), table })));
  lake
    .command('duplicates')
    .description('datasets held by more than one table')
    .option('--tenant <tenant>')
    .action((o: { tenant?: string }, cmd: Command) => run(cmd, (g) => clientFor(g).json('POST', '/v1/adapters/lakehouse/duplicates', tenantOf(o))));
}
