/** `svc manifest get|rehydrate|list|explore|export|import`. */
import { readFileSync, writeFileSync } from 'node:fs';
import type { Command } from 'commander';
import { downloadTo } from '../byte-transfer.ts';
import { progress } from '../progress.ts';
import { parseRangeOption } from '../range-option.ts';
import { clientFor, run } from '../runtime.ts';

function query(params: Record<string, string | boolean | undefined>): string {
  const entries = Object.entries(params).filter((e): e is [string, string | boolean] => e[1] !== undefined && e[1] !== false);
  return entries.length ? `?${new URLSearchParams(entries.map(([k, v]): [string, string] => [k, String(v)])).toString()}` : '';
}

export function register(program: Command): void {
  const manifest = program.command('manifest').description('manifests: inspect, rehydrate, list, explore, export, import');

  manifest
    .command('get <id>')
    .description('show a manifest')
    .action((id: string, _o, cmd: Command) => run(cmd, async (g) => clientFor(g).json('GET', `/v1/manifests/${encodeURIComponent(id)}`)));

  manifest
    .command('rehydrate <id>')
    .description('write the object bytes (verified) to --out or stdout')
    .option('--range <start:end>', 'a byte range: a:b inclusive, a: to the end, :n the last n bytes')
    .option('--out <file>', 'write to this file instead of stdout')
    .action((id: string, o, cmd: Command) =>
      run(cmd, async (g) => {
        const body = o.range ? { range: parseRangeOption(o.range) } : {};
        // Streamed to the file (or stdout) as it arrives: never held in memory, written asynchronously.
        const got = await downloadTo(clientFor(g).endpoint, 'POST', `/v1/manifests/${encodeURIComponent(id)}/rehydrate`, body, o.out ?? process.stdout);
        return o.out ? { manifest_id: id, bytes: got.bytes, out: o.out, content_range: got.contentRange } : undefined;
      }),
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
