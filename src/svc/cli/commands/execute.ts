/**
 * `svc execute --kind <kind> --file <path>` and `svc work-unit execute <id>`.
 * A byte_object file of any size is streamed as the raw body of
 * `POST /v1/work-units/execute/raw` (or, with `--bucket`/`--key`, of the raw
 * object put `PUT /v1/s3/objects`), with its length and SHA-256 declared and
 * a progress bar on a terminal (decision 112). An AI request file
 * (prompt_request, completion_request, embedding_request: JSON) goes to
 * `POST /v1/work-units/execute` and runs through the AI gateway.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { uploadFile } from '../byte-transfer.ts';
import type { SvcClient } from '../client.ts';
import { type Progress, progress } from '../progress.ts';
import { clientFor, run } from '../runtime.ts';
import { collectMeta, workUnitBodyFromFile } from '../work-unit-input.ts';

interface ExecuteFileOptions {
  file: string;
  tenant?: string;
  logicalRef?: string;
  contract?: string;
  mode?: string;
  meta?: Record<string, string>;
  bucket?: string;
  key?: string;
  transform?: string[];
}

function query(params: Record<string, string | undefined>): string {
  return new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString();
}

/** The raw route and query for a byte_object file: an object put when a bucket or key is named, else an inline execute. */
function rawTarget(o: ExecuteFileOptions): { method: string; route: string } {
  if (o.bucket !== undefined || o.key !== undefined) {
    const q = query({ bucket: o.bucket ?? 'cli-uploads', key: o.key ?? path.basename(o.file), tenant: o.tenant, mode: o.mode });
    return { method: 'PUT', route: `/v1/s3/objects?${q}` };
  }
  const q = query({
    logical_ref: o.logicalRef ?? pathToFileURL(path.resolve(o.file)).href,
    tenant: o.tenant,
    mode: o.mode,
    requested_contract: o.contract,
    metadata: o.meta ? JSON.stringify(o.meta) : undefined,
    transforms: o.transform?.join(','),
  });
  return { method: 'POST', route: `/v1/work-units/execute/raw?${q}` };
}

async function executeByteFile(client: SvcClient, o: ExecuteFileOptions): Promise<unknown> {
  const { method, route } = rawTarget(o);
  const size = statSync(o.file).size;
  // One line per phase, on a terminal only (progress.ts): hashing the file, then sending it.
  let bar: { phase: string; line: Progress } | undefined;
  try {
    return await uploadFile(client.endpoint, method, route, o.file, (phase, bytes) => {
      if (bar?.phase !== phase) {
        bar?.line.finish();
        bar = { phase, line: progress(phase, size) };
      }
      bar.line.update(bytes);
    });
  } finally {
    bar?.line.finish();
  }
}

export function register(program: Command): void {
  program
    .command('execute')
    .description('create, plan and execute a work unit from a file (byte_object: streamed raw and stored exactly; prompt_request etc.: through the AI gateway; prints the Execute result)')
    .requiredOption('--kind <kind>', 'byte_object | prompt_request | completion_request | embedding_request')
    .requiredOption('--file <path>', 'the object (byte_object) or the JSON request (e.g. {"messages":[…]})')
    .option('--contract <contract>', 'exact_bytes | semantic')
    .option('--tenant <tenant>')
    .option('--logical-ref <ref>', 'scheme://path (default: file:// URL of --file)')
    .option('--mode <mode>', 'observe | enforce')
    .option('--meta <key=value>', 'metadata entry (repeatable)', collectMeta)
    .option('--transform <name>', 'extra transform to plan, e.g. plugin:<id> (repeatable; policy decides)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--bucket <bucket>', 'byte_object: store as the object s3://<bucket>/<key> through the object gateway (default bucket with --key: cli-uploads)')
    .option('--key <key>', 'byte_object: the object key (default with --bucket: the file name)')
    .action((o, cmd: Command) =>
      run(cmd, async (g) => {
        const client = clientFor(g);
        if (o.kind === 'byte_object') return executeByteFile(client, o);
        const body = workUnitBodyFromFile({ kind: o.kind, file: o.file, tenant: o.tenant, logicalRef: o.logicalRef, contract: o.contract, metadata: o.meta });
        if (o.mode) body.mode = o.mode;
        if (o.transform) body.transforms = o.transform;
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
