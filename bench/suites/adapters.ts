/**
 * adapters: what the workload adapters save, side by side with plain
 * content-defined chunking and restic on the same deterministic files, in one
 * run (docs/adapters.md).
 *
 * 1. training — a sequence of safetensors checkpoints of a small
 *    transformer-shaped model where the embeddings and the lower layers stay
 *    frozen (fine-tuning): bytes stored through the real server's training
 *    adapter (tensor-aligned chunks) vs plain FastCDC ingest of the same
 *    files (same chunk store, compression and scope) vs restic (one snapshot
 *    per checkpoint, repository version 2, zstd).
 * 2. lakehouse — a Parquet table appended to and rewritten in several
 *    versions: bytes stored through the real server's lakehouse adapter vs
 *    plain FastCDC vs restic; then the restore test "table logical
 *    verification" over every version: seconds per GiB, with SHA-256 of the
 *    same bytes as the anchor (what byte-level verification costs).
 *
 * `npm run bench -- adapters [--checkpoints N] [--hidden H] [--layers L] [--rows R]`
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dirSize } from '../object-exact/dir-size.ts';
import { ensureRestic, resticBackup, resticInit } from '../object-exact/restic.ts';
import type { BenchReport } from '../report.ts';
import { round } from '../report.ts';
import { parseSafetensors } from '../../src/svc/adapters/training/safetensors.ts';
import { chunkScopeFor } from '../../src/svc/chunk-store/chunk-scope.ts';
import { FsChunkStore } from '../../src/svc/chunk-store/fs-chunk-store.ts';
import { ingest } from '../../src/svc/exact-bytes/ingest.ts';
import { ADMIN_KEY, type TestServer, startTestServer } from '../../test/helpers/server.ts';
import { type ModelShape, checkpoint } from '../../test/adapters/checkpoint-fixtures.ts';
import { ordersTable } from '../../test/adapters/parquet-fixtures.ts';

const MiB = 1024 * 1024;
/** Bytes under a directory that may not exist yet (a chunk store before its first write). */
const sizeOf = (dir: string) => (existsSync(dir) ? dirSize(dir) : 0);
const GiB = 1024 * MiB;
const arg = (args: string[], name: string, fallback: number) => {
  const i = args.indexOf(name);
  return i >= 0 ? Number(args[i + 1]) : fallback;
};

/** Plain FastCDC ingest of `files` into a fresh filesystem chunk store (tenant scope, enforce, zstd): bytes on disk. */
async function plainCdc(dir: string, files: Buffer[]): Promise<number> {
  const store = new FsChunkStore({ root: dir });
  const scope = chunkScopeFor('tenant', 'bench');
  for (const f of files) {
    await ingest((async function* () {
      yield f;
    })(), { store, scope, mode: 'enforce' });
  }
  return dirSize(dir);
}

/** restic: each file written to the same path and backed up as the next snapshot; repository growth after init. */
function resticSeries(dir: string, name: string, files: Buffer[]): number {
  const repo = path.join(dir, 'repo');
  const data = path.join(dir, 'data');
  mkdirSync(data, { recursive: true });
  resticInit(repo);
  const initBytes = dirSize(repo);
  for (const f of files) {
    writeFileSync(path.join(data, name), f);
    resticBackup(repo, data, ['.']);
  }
  return dirSize(repo) - initBytes;
}

async function call(s: TestServer, route: string, body: unknown): Promise<Record<string, any>> {
  const r = await s.call('POST', route, { key: ADMIN_KEY, body });
  if (r.status >= 300) throw new Error(`${route} → ${r.status}: ${(await r.text()).slice(0, 300)}`);
  return (await r.json()) as Record<string, any>;
}

/** Versions of a growing orders table: appends (the file rewritten with more rows), an update of 1 % of rows, a compaction. */
function tableVersions(rows: number): { label: string; file: Buffer }[] {
  const step = Math.round(rows / 4);
  return [
    { label: 'v1 initial', file: ordersTable({ rows }) },
    { label: 'v2 append 25 %', file: ordersTable({ rows: rows + step }) },
    { label: 'v3 append 25 %', file: ordersTable({ rows: rows + 2 * step }) },
    { label: 'v4 append 25 %', file: ordersTable({ rows: rows + 3 * step }) },
    { label: 'v5 update 1 row', file: ordersTable({ rows: rows + 3 * step, tamperRow: Math.floor(rows / 2) }) },
    { label: 'v6 compaction (row groups 50k)', file: ordersTable({ rows: rows + 3 * step, tamperRow: Math.floor(rows / 2), rowGroupSize: 50_000 }) },
  ];
}

/** One checkpoint series: through the real server's training adapter, plain CDC, and restic. */
async function trainingSeries(label: string, model: ModelShape, checkpoints: number, work: string) {
  const files = Array.from({ length: checkpoints }, (_, step) => checkpoint(model, step));
  const inputBytes = files.reduce((n, f) => n + f.length, 0);
  const layout = parseSafetensors(files[1]!);
  const frozenBytes = layout.tensors.filter((t) => t.name.startsWith('embed') || Number(/^layers\.(\d+)\./.exec(t.name)?.[1] ?? Infinity) < model.frozenLayers).reduce((n, t) => n + t.end - t.begin, 0);
  const svc = await startTestServer({ env: { SVC_LOG_LEVEL: 'warn' }, overrides: { 'adapters.max_body_bytes': 512 * MiB } });
  let adapterStored: number;
  let avoided = 0;
  let ms = 0;
  try {
    const before = sizeOf(svc.app.objects.fsChunks.root);
    for (let step = 0; step < files.length; step++) {
      const t0 = performance.now();
      const r = await call(svc, '/v1/adapters/training/checkpoints', { tenant: 'bench', run: 'bench/ft', step, bucket: 'ckpt', key: `ft/step-${step}.safetensors`, body_base64: files[step]!.toString('base64') });
      ms += performance.now() - t0;
      avoided += r['checkpoint_bytes_avoided'] as number;
    }
    adapterStored = sizeOf(svc.app.objects.fsChunks.root) - before;
  } finally {
    await svc.close();
  }
  const tag = label.replace(/[^a-z0-9]+/gi, '-');
  const plain = await plainCdc(path.join(work, `train-cdc-${tag}`), files);
  const restic = resticSeries(path.join(work, `train-restic-${tag}`), 'model.safetensors', files);
  return {
    label,
    model,
    tensors: layout.tensors.length,
    checkpoint_bytes: files[0]!.length,
    input_bytes: inputBytes,
    frozen_share: round(frozenBytes / files[1]!.length, 3),
    stored_bytes: { adapter: adapterStored, plain_cdc: plain, restic },
    checkpoint_bytes_avoided_reported: avoided,
    ratio_adapter_to_plain_cdc: round(adapterStored / plain, 3),
    ratio_adapter_to_restic: round(adapterStored / restic, 3),
    adapter_http_ingest_mib_per_s: round(inputBytes / MiB / (ms / 1000), 1),
  };
}

export default async function run(args: string[]): Promise<BenchReport> {
  const checkpoints = Math.max(10, arg(args, '--checkpoints', 10));
  const model: ModelShape = { vocab: arg(args, '--vocab', 4096), hidden: arg(args, '--hidden', 256), layers: arg(args, '--layers', 8), frozenLayers: 0 };
  model.frozenLayers = Math.max(0, Math.min(model.layers, arg(args, '--frozen-layers', Math.round(model.layers * 0.75))));
  const rows = arg(args, '--rows', 200_000);
  const resticVersion = ensureRestic();
  const work = mkdtempSync(path.join(os.tmpdir(), 'bench-adapters-'));
  const notes: string[] = [];
  try {
    // ── training ──────────────────────────────────────────────────────────
    // Two shapes of the same model family: tensor size decides how much tensor alignment adds over plain
    // CDC (the chunks that straddle a changed and a frozen tensor are the difference).
    const shapes: { label: string; model: ModelShape }[] = [
      { label: `hidden ${model.hidden} × ${model.layers} layers`, model },
      { label: `hidden ${Math.max(16, model.hidden / 4)} × ${Math.max(2, model.layers / 2)} layers`, model: { vocab: Math.max(64, model.vocab / 8), hidden: Math.max(16, model.hidden / 4), layers: Math.max(2, model.layers / 2), frozenLayers: Math.round(Math.max(2, model.layers / 2) * 0.75) } },
    ];
    const training = [];
    for (const shape of shapes) training.push(await trainingSeries(shape.label, shape.model, checkpoints, work));
    // ── lakehouse ─────────────────────────────────────────────────────────
    const versions = tableVersions(rows);
    const tableBytes = versions.reduce((n, v) => n + v.file.length, 0);
    const lakeSvc = await startTestServer({ env: { SVC_LOG_LEVEL: 'warn' }, overrides: { 'adapters.max_body_bytes': 512 * MiB } });
    let lakeStored: number;
    let logical: { seconds: number; checked: number; status: string };
    try {
      const before = sizeOf(lakeSvc.app.objects.fsChunks.root);
      for (const [i, v] of versions.entries()) {
        await call(lakeSvc, '/v1/adapters/lakehouse/tables', { tenant: 'bench', table: 'sales/orders', bucket: 'lake', key: `orders/v${i + 1}.parquet`, body_base64: v.file.toString('base64') });
      }
      lakeStored = sizeOf(lakeSvc.app.objects.fsChunks.root) - before;
      const rt = (await call(lakeSvc, '/v1/admin/restore-tests', { kind: 'table_logical', tenant: 'bench' }))['result'] as Record<string, any>;
      logical = { seconds: rt['details']['seconds'] as number, checked: rt['checked'] as number, status: rt['status'] as string };
    } finally {
      await lakeSvc.close();
    }
    const plainLake = await plainCdc(path.join(work, 'lake-cdc'), versions.map((v) => v.file));
    const resticLake = resticSeries(path.join(work, 'lake-restic'), 'orders.parquet', versions.map((v) => v.file));
    const shaStarted = performance.now();
    for (const v of versions) createHash('sha256').update(v.file).digest();
    const shaSeconds = (performance.now() - shaStarted) / 1000;
    const logicalSecPerGiB = logical.seconds / (tableBytes / GiB);
    const shaSecPerGiB = shaSeconds / (tableBytes / GiB);

    const results = {
      training,
      lakehouse: {
        rows_v1: rows,
        versions: versions.map((v) => ({ label: v.label, bytes: v.file.length })),
        input_bytes: tableBytes,
        stored_bytes: { adapter: lakeStored, plain_cdc: plainLake, restic: resticLake },
        ratio_adapter_to_plain_cdc: round(lakeStored / plainLake, 3),
        ratio_adapter_to_restic: round(lakeStored / resticLake, 3),
        logical_verification: { status: logical.status, versions_checked: logical.checked, seconds: logical.seconds, seconds_per_gib: round(logicalSecPerGiB, 2) },
        anchor_sha256_seconds_per_gib: round(shaSecPerGiB, 3),
        ratio_logical_to_sha256: round(logicalSecPerGiB / shaSecPerGiB, 1),
      },
      restic: resticVersion,
    };
    const mib = (n: number) => round(n / MiB, 2);
    const rowsOut: Array<Array<string | number>> = [];
    for (const t of training) {
      rowsOut.push(
        [`training (${t.label}): input (MiB)`, mib(t.input_bytes), mib(t.input_bytes), mib(t.input_bytes), '', `${checkpoints} checkpoints of ${mib(t.checkpoint_bytes)} MiB, frozen share ${round(t.frozen_share * 100, 1)} %`],
        [`training (${t.label}): stored (MiB)`, mib(t.stored_bytes.adapter), mib(t.stored_bytes.plain_cdc), mib(t.stored_bytes.restic), `${t.ratio_adapter_to_plain_cdc} / ${t.ratio_adapter_to_restic}`, 'target: adapter < plain CDC < restic'],
        [`training (${t.label}): stored / input`, round(t.stored_bytes.adapter / t.input_bytes, 3), round(t.stored_bytes.plain_cdc / t.input_bytes, 3), round(t.stored_bytes.restic / t.input_bytes, 3), '', `without compression, ideal ≈ ${round(1 - t.frozen_share + t.frozen_share / checkpoints, 3)}`],
      );
    }
    rowsOut.push(
      ['lakehouse: input (MiB)', mib(tableBytes), mib(tableBytes), mib(tableBytes), '', `${versions.length} versions`],
      ['lakehouse: stored (MiB)', mib(lakeStored), mib(plainLake), mib(resticLake), `${results.lakehouse.ratio_adapter_to_plain_cdc} / ${results.lakehouse.ratio_adapter_to_restic}`, 'adapter = plain CDC (exact bytes) + facts'],
      ['lakehouse: table logical verification (s/GiB)', round(logicalSecPerGiB, 2), '', '', `${results.lakehouse.ratio_logical_to_sha256}× sha256`, `anchor sha256 ${round(shaSecPerGiB, 3)} s/GiB`],
    );
    notes.push(
      'stored = bytes on disk added to the chunk store (svc: through the real HTTP server and adapter; plain CDC: ingest() of the same files, same store, zstd, tenant scope) or to the restic repository (version 2, zstd auto, one snapshot per version).',
      'ratio column: adapter / plain CDC, adapter / restic.',
      'table logical verification = the restore test table_logical through the real server: rehydrate from storage, decode every column with hyparquet, compare schema, row count and column checksums; its anchor is SHA-256 of the same bytes in memory.',
      `restic ${resticVersion}`,
    );
    return { suite: 'adapters', results, table: { columns: ['metric', 'svc adapter', 'plain CDC', 'restic', 'ratio', 'note'], rows: rowsOut }, notes };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
