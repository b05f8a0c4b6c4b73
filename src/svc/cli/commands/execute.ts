/**
 * `svc execute --kind byte_object --file <path>` and `svc work-unit execute <id>`.
 * Files up to the inline limit go to `POST /v1/work-units/execute`; larger
 * ones are uploaded with multipart to `s3://<bucket>/<key>` (progress on a
 * terminal) and executed at completion by the same exact executor.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { MAX_INLINE_PAYLOAD_BYTES } from '../../work-units/service.ts';
import { uploadFileMultipart } from '../multipart-upload.ts';
import { progress } from '../progress.ts';
import { clientFor, run } from '../runtime.ts';
import { collectMeta, workUnitBodyFromFile } from '../work-unit-input.ts';

export function register(program: Command): void {
  program
    .command('execute')
    .description('create, plan and execute a work unit from a file (byte_object: stored exactly; prints the Execute result)')
    .requiredOption('--kind <kind>', 'byte_object')
    .requiredOption('--file <path>', 'the object')
    .option('--tenant <tenant>')
    .option('--logical-ref <ref>', 'scheme://path (default: file:// URL of --file)')
    .option('--mode <mode>', 'observe | enforce')
    .option('--meta <key=value>', 'metadata entry (repeatable)', collectMeta)
    .option('--bucket <bucket>', 'for files above the inline limit: multipart target bucket', 'cli-uploads')
    .option('--key <key>', 'for files above the inline limit: multipart target key (default: the file name)')
    .action((o, cmd: Command) =>
      run(cmd, async (g) => {
        if (o.kind !== 'byte_object') throw new Error('svc execute runs byte_object work units; AI requests go through `svc gateway ai`');
        const client = clientFor(g);
        const size = statSync(o.file).size;
        if (size > MAX_INLINE_PAYLOAD_BYTES) {
          const bar = progress('uploading', size);
          try {
            return await uploadFileMultipart(client, o.file, { tenant: o.tenant, bucket: o.bucket, key: o.key ?? path.basename(o.file), mode: o.mode, onProgress: (n) => bar.update(n) });
          } finally {
            bar.finish();
          }
        }
        const body = workUnitBodyFromFile({ kind: o.kind, file: o.file, tenant: o.tenant, logicalRef: o.logicalRef, metadata: o.meta });
        if (o.mode) body.mode = o.mode;
        return client.json('POST', '/v1/work-units/execute', body);
      }),
    );

  const workUnit = program.commands.find((c) => c.name() === 'work-unit') ?? program.command('work-unit').description('work units');
  workUnit
    .command('execute <id>')
    .description('execute a stored byte_object work unit (uses its latest plan, or plans first)')
    .option('--mode <mode>', 'observe | enforce (plans again with this mode)')
    .action((id: string, o, cmd: Command) =>
      run(cmd, async (g) => clientFor(g).json('POST', `/v1/work-units/${encodeURIComponent(id)}/execute`, o.mode ? { mode: o.mode } : {})),
    );
}
