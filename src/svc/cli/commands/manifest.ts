/** `svc manifest get|rehydrate|list|explore|export|import`. */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { anyFailed, batchError, parseJobs, runBatch } from '../batch.ts';
import { type Endpoint, downloadTo } from '../byte-transfer.ts';
import { progress } from '../progress.ts';
import { parseRangeOption } from '../range-option.ts';
import { EXIT, clientFor, run } from '../runtime.ts';

function query(params: Record<string, string | boolean | undefined>): string {
  const entries = Object.entries(params).filter((e): e is [string, string | boolean] => e[1] !== undefined && e[1] !== false);
  return entries.length ? `?${new URLSearchParams(entries.map(([k, v]): [string, string] => [k, String(v)])).toString()}` : '';
}

/**
 * Several manifests in one run (decision 173): each written to
 * `<out-dir>/<manifest id>` (aside, renamed when complete and verified),
 * `--jobs` at once, every one attempted, results in the order given.
 */
async function rehydrateMany(endpoint: Endpoint, route: (id: string) => string, ids: readonly string[], o: { out?: string; outDir?: string; range?: string; jobs?: string }) {
  if (o.outDir === undefined) throw new Error('several manifests need --out-dir (each is written to <dir>/<manifest id>)');
  if (o.out !== undefined || o.range !== undefined) throw new Error('--out and --range apply to one manifest: give one id without --out-dir');
  if (new Set(ids).size !== ids.length) throw new Error('a manifest id is given twice');
  // The id becomes a file name: nothing that could leave the directory.
  const unsafe = ids.find((id) => !/^[A-Za-z0-9_-]{1,128}$/.test(id));
  if (unsafe !== undefined) throw new Error(`not a manifest id: ${JSON.stringify(unsafe)}`);
  const jobs = parseJobs(o.jobs);
  mkdirSync(o.outDir, { recursive: true });
  const outcomes = await runBatch(ids, jobs, (id) => downloadTo(endpoint, 'POST', route(id), {}, path.join(o.outDir!, id)));
  return outcomes.map((r, i) => {
    const id = ids[i]!;
    return r.ok ? { manifest_id: id, bytes: r.value.bytes, out: path.join(o.outDir!, id) } : { manifest_id: id, error: batchError(r.error) };
  });
}

export function register(program: Command): void {
  const manifest = program.command('manifest').description('manifests: inspect, rehydrate, list, explore, export, import');

  manifest
    .command('get <id>')
    .description('show a manifest')
    .action((id: string, _o, cmd: Command) => run(cmd, async (g) => clientFor(g).json('GET', `/v1/manifests/${encodeURIComponent(id)}`)));

  manifest
    .command('rehydrate <id...>')
    .description('write the object bytes (verified) to --out or stdout; several manifests: each to <out-dir>/<manifest id>')
    .option('--range <start:end>', 'a byte range: a:b inclusive, a: to the end, :n the last n bytes')
    .option('--out <file>', 'write to this file instead of stdout')
    .option('--out-dir <dir>', 'several manifests (or one): write each to <dir>/<manifest id>')
    .option('--jobs <n>', 'several manifests: transfers at once (default 2)')
    .action((ids: string[], o, cmd: Command) =>
      run(
        cmd,
        async (g) => {
          const endpoint = clientFor(g).endpoint;
          const route = (id: string) => `/v1/manifests/${encodeURIComponent(id)}/rehydrate`;
          if (o.outDir !== undefined || ids.length > 1) return rehydrateMany(endpoint, route, ids, o);
          const id = ids[0]!;
          const body = o.range ? { range: parseRangeOption(o.range) } : {};
          // Streamed to the file (or stdout) as it arrives: never held in memory, written asynchronously.
          const got = await downloadTo(endpoint, 'POST', route(id), body, o.out ?? process.stdout);
          return o.out ? { manifest_id: id, bytes: got.bytes, out: o.out, content_range: got.contentRange } : undefined;
        },
        // Several manifests: 1 when any of them failed (each result says which), after every one was attempted.
        (result) => (Array.isArray(result) && anyFailed(result) ? EXIT.failed : EXIT.ok),
      ),
    );

  manifest
    .command('list')
    .description('list manifests (tombstoned ones only with --include-tombstoned)')
    .option('--tenant <tenant>')
    .option('--logical-ref <ref>')
    .option('--state <state>', 'active | tombstoned | quarantined')
    .option('--include-tombstoned')
    .option('--redacted', 'ids, totals and statuses only')
    .option('--limit <n>')
    .option('--cursor <id>')
    .action((o, cmd: Command) =>
      run(cmd, async (g) =>
        clientFor(g).json(
          'GET',
          `/v1/manifests${query({ tenant: o.tenant, logical_ref: o.logicalRef, state: o.state, include_tombstoned: o.includeTombstoned, redacted: o.redacted, limit: o.limit, cursor: o.cursor })}`,
        ),
      ),
    );

  manifest
    .command('explore')
    .description('aggregate counts by kind, contract and state, with redacted rows')
    .option('--tenant <tenant>')
    .action((o, cmd: Command) => run(cmd, async (g) => clientFor(g).json('GET', `/v1/manifests/explore${query({ tenant: o.tenant })}`)));

  manifest
    .command('export')
    .description('export manifests and the ledger slice (and chunks with --include-chunks) to --out or stdout')
    .option('--tenant <tenant>')
    .option('--include-chunks', 'carry every referenced chunk (self-contained restore)')
    .option('--out <file>')
    .action((o, cmd: Command) =>
      run(cmd, async (g) => {
        const bar = progress('exporting', undefined);
        const doc = await clientFor(g).json('POST', '/v1/manifests/export', { ...(o.tenant ? { tenant: o.tenant } : {}), include_chunks: o.includeChunks === true });
        const text = JSON.stringify(doc);
        bar.update(Buffer.byteLength(text));
        bar.finish();
        if (!o.out) return doc;
        writeFileSync(o.out, text);
        const d = doc as { manifests: unknown[]; chunks: unknown[] | null };
        return { out: o.out, manifests: d.manifests.length, chunks: d.chunks?.length ?? 0, bytes: Buffer.byteLength(text) };
      }),
    );

  manifest
    .command('import <file>')
    .description('import an export (manifests and chunks; existing manifests are skipped)')
    .action((file: string, _o, cmd: Command) => run(cmd, async (g) => clientFor(g).json('POST', '/v1/manifests/import', JSON.parse(readFileSync(file, 'utf8')))));
}
