/**
 * `svc execute --kind <kind> --file <path>` and `svc work-unit execute <id>`.
 * A byte_object file up to the inline limit, and any AI request file
 * (prompt_request, completion_request, embedding_request: JSON, executed
 * through the AI gateway), goes to `POST /v1/work-units/execute`; larger
 * byte objects are uploaded with multipart to `s3://<bucket>/<key>`
 * (progress on a terminal) and executed at completion by the same exact executor.
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
    .description('create, plan and execute a work unit from a file (byte_object: stored exactly; prompt_request etc.: through the AI gateway; prints the Execute result)')
    .requiredOption('--kind <kind>', 'byte_object | prompt_request | completion_request | embedding_request')
    .requiredOption('--file <path>', 'the object (byte_object) or the JSON request (e.g. {"messages":[…]})')
    .option('--contract <contract>', 'exact_bytes | semantic')
    .option('--tenant <tenant>')
    .option('--logical-ref <ref>', 'scheme://path (default: file:// URL of --file)')
    .option('--mode <mode>', 'observe | enforce')
    .option('--meta <key=value>', 'metadata entry (repeatable)', collectMeta)
    .option('--bucket <bucket>', 'for files above the inline limit: multipart target bucket', 'cli-uploads')
    .option('--key <key>', 'for files above the inline limit: multipart target key (default: the file name)')
    .action((o, cmd: Command) =>
      run(cmd, async (g) => {
        const client = clientFor(g);
        const size = statSync(o.file).size;
        if (o.kind === 'byte_object' && size > MAX_INLINE_PAYLOAD_BYTES) {
          const bar = progress('uploading', size);
          try {
            return await uploadFileMultipart(client, o.file, { tenant: o.tenant, bucket: o.bucket, key: o.key ?? path.basename(o.file), mode: o.mode, onProgress: (n) => bar.update(n) });
          } finally {
            bar.finish();
          }
        }
        const body = workUnitBodyFromFile({ kind: o.kind, file: o.file, tenant: o.tenant, logicalRef: o.logicalRef, contract: o.contract, metadata: o.meta });
        if (o.mode) body.mode = o.mode;
        return client.json('POST', '/v1/work-units/execute', body);
      }),
    );

  const workUnit = program.commands.find((c) => c.name() === 'work-unit') ?? program.command('work-unit').description('work units');
  workUnit
    .command('execute <id>')
    .description('execute a stored work unit (byte_object: its latest plan, or plans first; AI request: through the AI gateway)')
    .option('--mode <mode>', 'observe | enforce (plans again with this mode)')
    .action((id: string, o, cmd: Command) =>
      run(cmd, async (g) => clientFor(g).json('POST', `/v1/work-units/${encodeURIComponent(id)}/execute`, o.mode ? { mode: o.mode } : {})),
    );
}
