/**
 * `svc adapter …`: the workload adapters (docs/adapters.md). Thin: read a
 * file when one is named, call `/v1/adapters/...`, print.
 *
 *   svc adapter list
 *   svc adapter lakehouse put <file.parquet> --table sales/orders --bucket lake --key orders/v3.parquet
 *   svc adapter lakehouse tables | versions <table> | duplicates
 *   svc adapter stream append <file.ndjson> --stream api/access --bucket logs
 *   svc adapter stream read api/access [--from iso] [--to iso] | streams | unused
 *   svc adapter training checkpoint <file.safetensors> --run r --bucket b --key k [--step n]
 *   svc adapter training checkpoints <run> | submit --run r --dataset mf_… --config c.json --code-digest h | complete <run_id> --result r.json
 *   svc adapter call <adapter> <operation> [--body json|@file]   (any adapter, e.g. one a signed plugin provides)
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

  const stream = adapter.command('stream').description('JSONL/NDJSON streams: appends store only new bytes');
  stream
    .command('append <file>')
    .description('append a file of records, or the whole log again: only bytes the stream lacks are stored')
    .requiredOption('--stream <name>', 'stream name, e.g. api/access')
    .requiredOption('--bucket <bucket>', 'object bucket for the segments')
    .option('--time-field <field>', 'record field holding the time (repeatable; default ts, time, timestamp, @timestamp)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--tenant <tenant>')
    .action((file: string, o: { stream: string; bucket: string; timeField?: string[]; tenant?: string }, cmd: Command) =>
      run(cmd, (g) =>
        clientFor(g).json('POST', '/v1/adapters/stream/append', { ...tenantOf(o), stream: o.stream, bucket: o.bucket, body_base64: fileBase64(file), ...(o.timeField ? { time_fields: o.timeField } : {}) }),
      ),
    );
  stream
    .command('read <stream>')
    .description('records in a time range')
    .option('--from <iso>')
    .option('--to <iso>')
    .option('--limit <n>', 'most records', (v: string) => Number(v))
    .option('--tenant <tenant>')
    .action((name: string, o: { from?: string; to?: string; limit?: number; tenant?: string }, cmd: Command) =>
      run(cmd, (g) => clientFor(g).json('POST', '/v1/adapters/stream/read', { ...tenantOf(o), stream: name, ...(o.from ? { from: o.from } : {}), ...(o.to ? { to: o.to } : {}), ...(o.limit ? { limit: o.limit } : {}) })),
    );
  stream
    .command('streams')
    .description('streams with their segments and size')
    .option('--tenant <tenant>')
    .action((o: { tenant?: string }, cmd: Command) => run(cmd, (g) => clientFor(g).json('POST', '/v1/adapters/stream/streams/list', tenantOf(o))));
  stream
    .command('unused')
    .description('unused logs: segments never read back')
    .option('--older-than-days <n>', 'only segments stored at least n days ago', (v: string) => Number(v))
    .option('--tenant <tenant>')
    .action((o: { olderThanDays?: number; tenant?: string }, cmd: Command) =>
      run(cmd, (g) => clientFor(g).json('POST', '/v1/adapters/stream/unused', { ...tenantOf(o), ...(o.olderThanDays !== undefined ? { older_than_days: o.olderThanDays } : {}) })),
    );

  const training = adapter.command('training').description('checkpoints chunked on tensor boundaries; identical training runs answered from their record');
  training
    .command('checkpoint <file>')
    .description('store a safetensors checkpoint of a run')
    .requiredOption('--run <name>', 'run name')
    .requiredOption('--bucket <bucket>')
    .requiredOption('--key <key>')
    .option('--step <n>', 'training step', (v: string) => Number(v))
    .option('--tenant <tenant>')
    .action((file: string, o: { run: string; bucket: string; key: string; step?: number; tenant?: string }, cmd: Command) =>
      run(cmd, (g) =>
        clientFor(g).json('POST', '/v1/adapters/training/checkpoints', { ...tenantOf(o), run: o.run, bucket: o.bucket, key: o.key, body_base64: fileBase64(file), ...(o.step !== undefined ? { step: o.step } : {}) }),
      ),
    );
  training
    .command('checkpoints <run>')
    .description('checkpoints of a run with the bytes each avoided')
    .option('--tenant <tenant>')
    .action((name: string, o: { tenant?: string }, cmd: Command) => run(cmd, (g) => clientFor(g).json('POST', '/v1/adapters/training/checkpoints/list', { ...tenantOf(o), run: name })));
  training
    .command('submit')
    .description('submit a run; an identical one (datasets + config + code) is answered from its recorded result')
    .requiredOption('--run <name>')
    .requiredOption('--dataset <manifest_id>', 'dataset manifest (repeatable)', (v: string, prev: string[] = []) => [...prev, v])
    .requiredOption('--config <file.json>', 'run configuration (JSON object)')
    .requiredOption('--code-digest <sha256>', 'sha256 of the training code')
    .option('--estimated-gpu-seconds <n>', 'cost estimate used when the recorded run has none', (v: string) => Number(v))
    .option('--tenant <tenant>')
    .action((o: { run: string; dataset: string[]; config: string; codeDigest: string; estimatedGpuSeconds?: number; tenant?: string }, cmd: Command) =>
      run(cmd, (g) =>
        clientFor(g).json('POST', '/v1/adapters/training/runs/submit', {
          ...tenantOf(o),
          run: o.run,
          dataset_manifests: o.dataset,
          config: JSON.parse(readFileSync(o.config, 'utf8')) as unknown,
          code_digest: o.codeDigest,
          ...(o.estimatedGpuSeconds !== undefined ? { estimated_gpu_seconds: o.estimatedGpuSeconds } : {}),
        }),
      ),
    );
  training
    .command('complete <run_id>')
    .description('record what a submitted run produced')
    .requiredOption('--result <file.json>', 'the run result (JSON object)')
    .option('--gpu-seconds <n>', 'measured GPU seconds of the run', (v: string) => Number(v))
    .option('--tenant <tenant>')
    .action((runId: string, o: { result: string; gpuSeconds?: number; tenant?: string }, cmd: Command) =>
      run(cmd, (g) =>
        clientFor(g).json('POST', '/v1/adapters/training/runs/complete', { ...tenantOf(o), run_id: runId, result: JSON.parse(readFileSync(o.result, 'utf8')) as unknown, ...(o.gpuSeconds !== undefined ? { gpu_seconds: o.gpuSeconds } : {}) }),
      ),
    );

  adapter
    .command('call <adapter> <operation>')
    .description('any operation of any adapter, e.g. one provided by a signed plugin, with a JSON object body')
    .option('--body <json|@file>', 'the request body: JSON text, or @path to a JSON file', '{}')
    .action((name: string, operation: string, o: { body: string }, cmd: Command) =>
      run(cmd, (g) => clientFor(g).json('POST', `/v1/adapters/${encodeURIComponent(name)}/${operation.split('/').map(encodeURIComponent).join('/')}`, JSON.parse(o.body.startsWith('@') ? readFileSync(o.body.slice(1), 'utf8') : o.body) as unknown)),
    );
}
