/**
 * `svc execute --kind <kind> --file <path>` and `svc work-unit execute <id>`.
 * A byte_object file of any size is streamed as the raw body of
 * `POST /v1/work-units/execute/raw` (or, with `--bucket`/`--key`, of the raw
 * object put `PUT /v1/s3/objects`), with its length and SHA-256 declared and
 * a progress bar on a terminal (decision 112); `--file -` streams standard
 * input, its length and digest declared in a footer (decision 198). An AI request file
 * (prompt_request, completion_request, embedding_request: JSON) goes to
 * `POST /v1/work-units/execute` and runs through the AI gateway.
 */
import { statSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Command } from 'commander';
import { anyFailed, batchError, parseJobs, runBatch } from '../batch.ts';
import { uploadFile, uploadStream } from '../byte-transfer.ts';
import type { SvcClient } from '../client.ts';
import { type Progress, progress } from '../progress.ts';
import { EXIT, clientFor, run } from '../runtime.ts';
import { STDIN, collectMeta, requireStdinName, workUnitBodyFromFile } from '../work-unit-input.ts';

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
  if (o.file === STDIN) {
    const bar = progress('uploading standard input', undefined);
    try {
      return await uploadStream(client.endpoint, method, route, process.stdin, (bytes) => bar.update(bytes));
    } finally {
      bar.finish();
    }
  }
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

/**
 * Several byte_object files in one run (decision 173): each its own work unit
 * (or object, keyed by its file name, with `--bucket`), `jobs` at once; every
 * file is attempted, results in the order given. One progress line on a
 * terminal for the bytes sent over all files.
 */
async function executeByteFiles(client: SvcClient, o: ExecuteFileOptions, files: readonly string[], jobs: number): Promise<Array<{ file: string; result?: unknown; error?: unknown }>> {
  if (o.key !== undefined || o.logicalRef !== undefined) {
    throw new Error('--key and --logical-ref name one object: give one --file, or let each file be named by its file name');
  }
  const sizes = files.map((f) => statSync(f).size); // a missing file is a usage error before anything is sent
  if (o.bucket !== undefined) {
    const seen = new Map<string, string>();
    for (const f of files) {
      const key = path.basename(f);
      const other = seen.get(key);
      if (other !== undefined) throw new Error(`${other} and ${f} would both be stored as s3://${o.bucket}/${key}: store them in separate runs or with --key`);
      seen.set(key, f);
    }
  }
  const bar = progress(`storing ${files.length} files`, sizes.reduce((a, b) => a + b, 0));
  const sent = new Array<number>(files.length).fill(0);
  const outcomes = await runBatch(files, jobs, (file, i) => {
    const { method, route } = rawTarget({ ...o, file });
    return uploadFile(client.endpoint, method, route, file, (phase, bytes) => {
      if (phase !== 'uploading') return;
      sent[i] = bytes;
      bar.update(sent.reduce((a, b) => a + b, 0));
    });
  });
  bar.finish();
  return outcomes.map((r, i) => (r.ok ? { file: files[i]!, result: r.value } : { file: files[i]!, error: batchError(r.error) }));
}

export function register(program: Command): void {
  program
    .command('execute')
    .description('create, plan and execute a work unit from a file (byte_object: streamed raw and stored exactly; prompt_request etc.: through the AI gateway; prints the Execute result)')
    .requiredOption('--kind <kind>', 'byte_object | prompt_request | completion_request | embedding_request')
    .requiredOption('--file <path>', 'the object (byte_object) or the JSON request (e.g. {"messages":[…]}); - reads standard input (then name it with --logical-ref or --key); byte_object: repeatable, several files in one run', (v: string, prev: string[] = []) => [...prev, v])
    .option('--jobs <n>', 'byte_object with several --file: files sent at once (default 2)')
    .option('--contract <contract>', 'exact_bytes | semantic')
    .option('--tenant <tenant>')
    .option('--logical-ref <ref>', 'scheme://path (default: file:// URL of --file)')
    .option('--mode <mode>', 'observe | enforce')
    .option('--meta <key=value>', 'metadata entry (repeatable)', collectMeta)
    .option('--transform <name>', 'extra transform to plan, e.g. plugin:<id> (repeatable; policy decides)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--bucket <bucket>', 'byte_object: store as the object s3://<bucket>/<key> through the object gateway (default bucket with --key: cli-uploads)')
    .option('--key <key>', 'byte_object: the object key (default with --bucket: the file name)')
    .action((o, cmd: Command) =>
      run(
        cmd,
        async (g) => {
          const client = clientFor(g);
          const files = o.file as string[];
          if (files.length > 1) {
            if (o.kind !== 'byte_object') throw new Error('several --file are for --kind byte_object only');
            if (files.includes(STDIN)) throw new Error('--file - (standard input) is one object: send it in a run of its own');
            return executeByteFiles(client, o, files, parseJobs(o.jobs));
          }
          const one = { ...o, file: files[0]! };
          requireStdinName(one);
          if (o.kind === 'byte_object') return executeByteFile(client, one);
          const body = workUnitBodyFromFile({ kind: o.kind, file: one.file, tenant: o.tenant, logicalRef: o.logicalRef, contract: o.contract, metadata: o.meta });
          if (o.mode) body.mode = o.mode;
          if (o.transform) body.transforms = o.transform;
          return client.json('POST', '/v1/work-units/execute', body);
        },
        // Several files: 1 when any of them failed (each result says which), after every file was attempted.
        (result) => (Array.isArray(result) && anyFailed(result) ? EXIT.failed : EXIT.ok),
      ),
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
