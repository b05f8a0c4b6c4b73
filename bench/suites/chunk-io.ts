/**
 * chunk-io: what the chunk store costs the storage underneath, before and
 * after pack files (decisions 114–116), in one run, per GiB ingested:
 *
 * - filesystem: files created and fsyncs (every `FileHandle.sync()` of the
 *   process is counted: chunk or pack files and their directories), plus the
 *   pack index's database statements (each an SQLite WAL commit, fsynced
 *   under the default `storage.sqlite_synchronous: full`);
 * - S3 (s3rver on 127.0.0.1): PUT requests (old layout: one object per new
 *   chunk, counted in the bucket; packs: the pack writer's PUT count);
 * - ingest and restore throughput of the same corpus through the library
 *   pipeline (`ingest`, `openRehydration`), every object restored and
 *   compared by SHA-256;
 * - garbage collection on the packed filesystem store: half the objects
 *   deleted, then the two runs that condemn and delete — time and bytes
 *   freed per GiB ingested.
 *
 * - stored bytes (decision 157): the same corpus stored by the packed
 *   filesystem store with 64 KiB chunks compressed alone (zstd 3, before
 *   frames), with zstd frames and with BWT frames (the default), and by
 *   restic 0.14 (repository v2, zstd auto) when `restic` is on PATH; ingest
 *   CPU time of each, and 4 KiB range reads on the log-like object, cold
 *   (fresh store: no decoded frame cached) and warm (the same reads again).
 *
 * Corpus: the issue's mix (random, random, log-like, JSON), `--mib N` per
 * kind (default 32, so 128 MiB in all; figures are scaled to one GiB).
 * `--compression-only` runs only the stored-bytes section and writes
 * bench/results/chunk-io-compression.{json,md}.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startS3TestServer } from '../../test/chunk-store/s3-test-server.ts';
import { makePrincipal } from '../../src/svc/auth/principal.ts';
import { type ChunkScope, chunkScopeFor } from '../../src/svc/chunk-store/chunk-scope.ts';
import type { ChunkStore } from '../../src/svc/chunk-store/chunk-store.ts';
import { FsChunkStore } from '../../src/svc/chunk-store/fs-chunk-store.ts';
import { FsPackFiles } from '../../src/svc/chunk-store/pack-files.ts';
import { PackedChunkStore } from '../../src/svc/chunk-store/packed-chunk-store.ts';
import { S3ChunkStore } from '../../src/svc/chunk-store/s3-chunk-store.ts';
import { S3PackFiles } from '../../src/svc/chunk-store/s3-pack-files.ts';
import { loadConfig } from '../../src/svc/config/load.ts';
import type { RequestContext } from '../../src/svc/context.ts';
import { type IngestedChunk } from '../../src/svc/exact-bytes/chunk-ref.ts';
import { ingest } from '../../src/svc/exact-bytes/ingest.ts';
import { openRehydration } from '../../src/svc/exact-bytes/rehydrate.ts';
import { GcService } from '../../src/svc/gc/gc-service.ts';
import { LedgerAppender } from '../../src/svc/ledger/appender.ts';
import type { ByteManifest } from '../../src/svc/manifests/manifest.ts';
import { openStore, type Store } from '../../src/svc/store/store.ts';
import { type BenchReport, round } from '../report.ts';
import { corpusFile } from '../corpus/corpus-files.ts';
import { resticBackup, resticInit, resticVersion } from '../object-exact/restic.ts';
import type { FrameCodec } from '../../src/svc/chunking/frame-codec.ts';
import { writeFileSync } from 'node:fs';

const MiB = 1024 * 1024;
const GiB = 1024 * MiB;
const S3_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };

interface Counted {
  ingest_s: number;
  restore_s: number;
  files: number;
  fsyncs: number;
  index_statements: number;
  puts: number;
  exact: boolean;
  objects: Array<{ sha256: string; chunks: IngestedChunk[] }>;
  /** Chunks ingest reported as newly written. */
  new_chunks: number;
}

let fsyncs = 0;
/** Counts every FileHandle.sync() in this process (file and directory fsyncs alike). */
async function countFsyncs(): Promise<void> {
  const probe = path.join(os.tmpdir(), `svc-fsync-probe-${process.pid}`);
  const handle = await fs.open(probe, 'w');
  const proto = Object.getPrototypeOf(handle) as { sync(): Promise<void> };
  await handle.close();
  await fs.rm(probe, { force: true });
  const original = proto.sync;
  proto.sync = function (this: unknown) {
    fsyncs++;
    return original.call(this);
  };
}

function countFiles(dir: string): number {
  let n = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) n += countFiles(full);
    else if (entry.isFile() && statSync(full).size > 0) n++;
  }
  return n;
}

/** Ingests every file, then restores and checks it. */
async function run(store: ChunkStore, scope: ChunkScope, files: Buffer[]): Promise<Pick<Counted, 'ingest_s' | 'restore_s' | 'exact' | 'objects' | 'new_chunks'>> {
  const objects: Counted['objects'] = [];
  let newChunks = 0;
  let t = performance.now();
  for (const file of files) {
    const result = await ingest(
      (async function* () {
        for (let at = 0; at < file.length; at += MiB) yield file.subarray(at, Math.min(file.length, at + MiB));
      })(),
      { store, scope, mode: 'enforce' },
    );
    objects.push({ sha256: result.sha256, chunks: result.chunks });
    newChunks += result.stats.chunks_new;
  }
  const ingest_s = (performance.now() - t) / 1000;
  t = performance.now();
  let exact = true;
  for (const [i, o] of objects.entries()) {
    const r = await openRehydration(o.chunks, { store, scope, expectedSha256: o.sha256 });
    const h = createHash('sha256');
    for await (const piece of r.stream) h.update(piece);
    if (h.digest('hex') !== createHash('sha256').update(files[i]!).digest('hex')) exact = false;
  }
  return { ingest_s, restore_s: (performance.now() - t) / 1000, exact, objects, new_chunks: newChunks };
}

/** A view of a store whose writers have no `putFramed`: every new chunk compressed alone (the layout before frames). */
function withoutFrames(store: PackedChunkStore): ChunkStore {
  return Object.assign(Object.create(store) as PackedChunkStore, {
    openWriter: () => {
      const w = store.openWriter();
      return { stat: w.stat.bind(w), put: w.put.bind(w), flush: w.flush.bind(w) };
    },
  });
}

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
}

interface StoredFigures {
  variant: string;
  stored_bytes: number;
  ingest_cpu_s: number;
  ingest_s: number;
  range_cold_p50_ms?: number;
  range_cold_p95_ms?: number;
  range_warm_p50_ms?: number;
  range_warm_p95_ms?: number;
}

/** Stored bytes of the corpus per compression layout, beside restic's (when installed). */
async function storedBytes(work: string, files: Buffer[], scope: ChunkScope): Promise<StoredFigures[]> {
  const out: StoredFigures[] = [];
  const variants: Array<{ name: string; frames: FrameCodec | null }> = [
    { name: 'packs, 64 KiB chunks each zstd 3 (frame_codec none, the default)', frames: null },
    { name: 'packs, zstd frames of 1 MiB', frames: 'zstd' },
    { name: 'packs, BWT frames of 1 MiB (frame_codec bwt)', frames: 'bwt' },
  ];
  for (const v of variants) {
    const root = path.join(work, `stored-${v.frames ?? 'chunks'}`);
    const db = await openStore({ stateDir: path.join(work, `stored-${v.frames ?? 'chunks'}-db`) });
    try {
      const packed = new PackedChunkStore({ packs: new FsPackFiles({ root }), index: db.chunkPacks, frameCodec: v.frames ?? 'bwt' });
      const store = v.frames ? packed : withoutFrames(packed);
      const cpu = process.cpuUsage();
      const t = performance.now();
      const objects: Array<{ sha256: string; chunks: IngestedChunk[] }> = [];
      for (const file of files) {
        const r = await ingest(
          (async function* () {
            for (let at = 0; at < file.length; at += MiB) yield file.subarray(at, Math.min(file.length, at + MiB));
          })(),
          { store, scope, mode: 'enforce' },
        );
        objects.push({ sha256: r.sha256, chunks: r.chunks });
      }
      const ingestS = (performance.now() - t) / 1000;
      const used = process.cpuUsage(cpu);
      // 4 KiB range reads at seeded offsets of the log-like object: a fresh store has no decoded frame cached.
      const log = objects[2]!;
      const logBytes = files[2]!.length;
      const offsets = Array.from({ length: 60 }, (_, i) => Math.floor((((i * 2654435761) >>> 0) / 2 ** 32) * (logBytes - 4096)));
      const fresh = new PackedChunkStore({ packs: new FsPackFiles({ root }), index: db.chunkPacks, frameCodec: v.frames ?? 'bwt' });
      const timed = async (): Promise<number[]> => {
        const ms: number[] = [];
        for (const start of offsets) {
          const t0 = performance.now();
          const r = await openRehydration(log.chunks, { store: fresh, scope, range: { start, end: start + 4095 } });
          let n = 0;
          for await (const piece of r.stream) n += piece.length;
          if (n !== 4096) throw new Error(`range read returned ${n} bytes`);
          ms.push(performance.now() - t0);
        }
        return ms;
      };
      const cold = await timed();
      const warm = await timed();
      out.push({
        variant: v.name,
        stored_bytes: dirSize(root),
        ingest_cpu_s: round((used.user + used.system) / 1e6, 2),
        ingest_s: round(ingestS, 2),
        range_cold_p50_ms: round(percentile(cold, 0.5), 2),
        range_cold_p95_ms: round(percentile(cold, 0.95), 2),
        range_warm_p50_ms: round(percentile(warm, 0.5), 2),
        range_warm_p95_ms: round(percentile(warm, 0.95), 2),
      });
    } finally {
      await db.close();
    }
  }
  if (resticVersion()) {
    const dir = path.join(work, 'restic-corpus');
    await fs.mkdir(dir, { recursive: true });
    const names = files.map((f, i) => {
      const name = `file-${i}.bin`;
      writeFileSync(path.join(dir, name), f);
      return name;
    });
    const repo = path.join(work, 'restic-repo');
    resticInit(repo);
    const r = resticBackup(repo, dir, names);
    // CPU of the child is not visible here: wall time only.
    out.push({ variant: `restic (${resticVersion()!.split(' ').slice(0, 2).join(' ')}, repo v2, zstd auto)`, stored_bytes: r.addedBytes, ingest_cpu_s: Number.NaN, ingest_s: round(r.ms / 1000, 2) });
  }
  return out;
}

export default async function chunkIo(args: string[]): Promise<BenchReport> {
  const mibArg = args.indexOf('--mib');
  const perKind = (mibArg >= 0 ? Number(args[mibArg + 1]) : 32) * MiB;
  const files = [corpusFile('random', perKind, 'chunk-io-a'), corpusFile('random', perKind, 'chunk-io-b'), corpusFile('log-like', perKind, 'chunk-io-log'), corpusFile('json', perKind, 'chunk-io-json')];
  const total = files.reduce((n, f) => n + f.length, 0);
  if (args.includes('--compression-only')) {
    const work = mkdtempSync(path.join(os.tmpdir(), 'svc-chunk-io-'));
    try {
      return storedReport(total, await storedBytes(work, files, chunkScopeFor('tenant', 'bench')));
    } finally {
      rmSync(work, { recursive: true, force: true });
    }
  }
  const perGiB = (x: number) => round((x * GiB) / total, 1);
  const scope = chunkScopeFor('tenant', 'bench');
  await countFsyncs();
  const work = mkdtempSync(path.join(os.tmpdir(), 'svc-chunk-io-'));
  const s3 = await startS3TestServer('chunk-io');
  const figures: Record<string, Counted> = {};
  let gcFigures: Record<string, number> = {};
  let stored: StoredFigures[] = [];
  const stores: Store[] = [];
  const openIndex = async (name: string) => {
    const store = await openStore({ stateDir: path.join(work, `${name}-db`) });
    stores.push(store);
    return store;
  };
  const connection = { bucket: s3.bucket, region: s3.region, endpoint: s3.endpoint, forcePathStyle: true, credentials: S3_CREDENTIALS };
  try {
    {
      const root = path.join(work, 'fs-files');
      const store = new FsChunkStore({ root });
      fsyncs = 0;
      const r = await run(store, scope, files);
      figures['filesystem, one file per chunk (before)'] = { ...r, files: countFiles(root), fsyncs, index_statements: 0, puts: 0 };
    }
    let packedFs: { store: PackedChunkStore; db: Store; objects: Counted['objects'] } | undefined;
    {
      const root = path.join(work, 'fs-packs');
      const db = await openIndex('fs-packs');
      const packs = new FsPackFiles({ root });
      const store = new PackedChunkStore({ packs, index: db.chunkPacks, legacy: new FsChunkStore({ root }) });
      fsyncs = 0;
      const r = await run(store, scope, files);
      const usage = await db.chunkPacks.packUsage();
      const statements = usage.reduce((n, p) => n + 1 + Math.ceil(p.entry_count / 500), 0);
      figures['filesystem, packs (after)'] = { ...r, files: countFiles(root), fsyncs, index_statements: statements, puts: 0 };
      packedFs = { store, db, objects: r.objects };
    }
    {
      const prefix = 's3-files';
      const store = new S3ChunkStore({ ...connection, prefix });
      const r = await run(store, scope, files);
      // One PUT per new chunk, by construction of S3ChunkStore.put (HEAD, then PUT only when absent; no races here).
      figures['S3, one object per chunk (before)'] = { ...r, files: 0, fsyncs: 0, index_statements: 0, puts: r.new_chunks };
      await store.close();
    }
    {
      const prefix = 's3-packs';
      const db = await openIndex('s3-packs');
      const packs = new S3PackFiles({ ...connection, prefix });
      const store = new PackedChunkStore({ packs, index: db.chunkPacks, legacy: new S3ChunkStore({ ...connection, prefix }) });
      const r = await run(store, scope, files);
      const usage = await db.chunkPacks.packUsage();
      figures['S3, packs (after)'] = { ...r, files: 0, fsyncs: 0, index_statements: usage.reduce((n, p) => n + 1 + Math.ceil(p.entry_count / 500), 0), puts: packs.counters.puts };
      await packs.close();
    }
    // Garbage collection on the packed filesystem store: the random files are deleted (nothing else shares their chunks).
    {
      const { store, db, objects } = packedFs!;
      let now = Date.now();
      const config = loadConfig({ env: {}, overrides: { 'gc.grace_minutes': 60, 'gc.tombstone_retention_days': 0, 'gc.multipart_expiry_hours': null } }).config;
      const manifests = objects.map((o, i) => ({
        manifest_id: `mf_${String(i).padStart(6, '0')}`,
        tenant: 'bench',
        chunk_scope: scope,
        logical_ref: `s3://bench/file-${i}`,
        state: i < 2 ? 'tombstoned' : 'active',
        state_reason: i < 2 ? 'object_deleted' : null,
        updated_at: new Date(now - 1000).toISOString(),
        chunks: o.chunks,
      }));
      const gc = new GcService({
        config,
        store,
        index: db.chunkPacks,
        leases: db.leases,
        manifests: {
          page: async (_t, after, limit) => manifests.filter((m) => m.manifest_id > after).slice(0, limit) as unknown as ByteManifest[],
          markRetentionExpired: async () => true,
        },
        legalHolds: { active: async () => [] },
        multipart: { expireAbandoned: async () => [] },
        ledger: new LedgerAppender(db.ledger),
        now: () => new Date(now),
      });
      const ctx = { principal: makePrincipal('bench', ['admin']), traceId: 'tr_bench_gc' } as RequestContext;
      const root = path.join(work, 'fs-packs');
      const sizeBefore = dirSize(root);
      now += 2 * 3_600_000; // past the five-minute pack age, and the index rows past the grace period
      let t = performance.now();
      const condemn = await gc.run(ctx);
      const condemnS = (performance.now() - t) / 1000;
      now += 2 * 3_600_000;
      t = performance.now();
      const sweep = await gc.run(ctx);
      const sweepS = (performance.now() - t) / 1000;
      const sizeAfter = dirSize(root);
      // The kept objects still restore bit-exact.
      let keptExact = true;
      for (const [i, o] of objects.entries()) {
        if (i < 2) continue;
        const r = await openRehydration(o.chunks, { store, scope, expectedSha256: o.sha256 });
        const h = createHash('sha256');
        for await (const piece of r.stream) h.update(piece);
        if (h.digest('hex') !== o.sha256) keptExact = false;
      }
      gcFigures = {
        condemn_run_s_per_gib: round((condemnS * GiB) / total, 3),
        delete_run_s_per_gib: round((sweepS * GiB) / total, 3),
        chunks_condemned: condemn.chunks.condemned,
        chunks_deleted: sweep.chunks.deleted,
        packs_deleted: sweep.packs.deleted,
        packs_repacked: sweep.packs.repacked,
        bytes_freed_per_gib: Math.round(((sizeBefore - sizeAfter) * GiB) / total),
        deleted_share_of_input: round((files[0]!.length + files[1]!.length) / total, 3),
        kept_exact: keptExact ? 1 : 0,
      };
    }
    stored = await storedBytes(work, files, scope);
  } finally {
    for (const s of stores) await s.close();
    await s3.close();
    rmSync(work, { recursive: true, force: true });
  }

  const [fsBefore, fsAfter, s3Before, s3After] = Object.values(figures) as [Counted, Counted, Counted, Counted];
  const rows = Object.entries(figures).map(([name, f]) => [
    name,
    perGiB(f.files),
    perGiB(f.fsyncs),
    perGiB(f.index_statements),
    perGiB(f.puts),
    round(total / MiB / f.ingest_s, 1),
    round(total / MiB / f.restore_s, 1),
    f.exact ? 'yes' : 'NO',
  ]);
  const results = {
    corpus_mib: total / MiB,
    per_gib: Object.fromEntries(Object.entries(figures).map(([k, f]) => [k, { files: perGiB(f.files), fsyncs: perGiB(f.fsyncs), index_statements: perGiB(f.index_statements), puts: perGiB(f.puts), ingest_mib_s: round(total / MiB / f.ingest_s, 1), restore_mib_s: round(total / MiB / f.restore_s, 1), exact: f.exact }])),
    fs_files_ratio: round(fsAfter.files / fsBefore.files, 4),
    fs_fsyncs_ratio: round((fsAfter.fsyncs + fsAfter.index_statements) / fsBefore.fsyncs, 4),
    s3_puts_ratio: round(s3After.puts / s3Before.puts, 4),
    s3_puts_target_met: s3After.puts <= s3Before.puts / 32,
    gc: gcFigures,
    stored: stored,
  };
  const storedPart = storedReport(total, stored);
  return {
    suite: 'chunk-io',
    results,
    table: {
      columns: [`${total / MiB} MiB (random, random, log-like, JSON), per GiB`, 'files', 'fsyncs', 'index statements', 'S3 PUTs', 'ingest MiB/s', 'restore MiB/s', 'bit-exact'],
      rows,
    },
    notes: [
      `Ratios after/before in this run: filesystem files ${results.fs_files_ratio}×, fsyncs (index commits counted as fsyncs) ${results.fs_fsyncs_ratio}×, S3 PUTs ${results.s3_puts_ratio}× (target ≤ 1/32: ${results.s3_puts_target_met ? 'met' : 'not met'}).`,
      `fsyncs: every FileHandle.sync() in the process (chunk/pack files and directories). Index statements: the pack index's inserts (2 per pack here), each an SQLite WAL commit with an fsync under storage.sqlite_synchronous: full; they are not in the fsync column. The old layout also wrote one manifest-side row per chunk (unchanged, not counted on either side). S3 PUTs: old layout = one per new chunk (S3ChunkStore.put: HEAD, then PUT when absent); packs = the pack writer's counted PUTs. Throughput: library pipeline in this process (ingest, then a verified restore of every object), s3rver on 127.0.0.1 — a floor for real S3, where per-request latency makes PUT counts matter more.`,
      ...(storedPart.notes ?? []),
      `GC (packed filesystem store, grace 60 min, retention 0, clock moved 2 h between runs): the two random files deleted (${round(((gcFigures['deleted_share_of_input'] ?? 0) as number) * 100, 1)}% of the input): condemn run ${gcFigures['condemn_run_s_per_gib']} s/GiB, delete run ${gcFigures['delete_run_s_per_gib']} s/GiB, ${gcFigures['bytes_freed_per_gib']} bytes freed per GiB ingested, ${gcFigures['packs_deleted']} packs deleted, ${gcFigures['packs_repacked']} repacked; kept objects bit-exact: ${gcFigures['kept_exact'] ? 'yes' : 'NO'}.`,
    ],
  };
}

/** The stored-bytes section as a report of its own (`--compression-only`) and as notes of the full one. */
function storedReport(total: number, stored: StoredFigures[]): BenchReport {
  const restic = stored.find((s) => s.variant.startsWith('restic'));
  const ratio = (s: StoredFigures) => (restic ? round(s.stored_bytes / restic.stored_bytes, 3) : null);
  const line = (s: StoredFigures) =>
    `${s.variant}: ${(s.stored_bytes / 1e6).toFixed(2)} MB${restic && s !== restic ? ` (${ratio(s)}× restic)` : ''}, ingest ${s.ingest_s} s` +
    (Number.isNaN(s.ingest_cpu_s) ? '' : ` (${s.ingest_cpu_s} s CPU in this process)`) +
    (s.range_cold_p50_ms === undefined ? '' : `, 4 KiB range reads cold p50/p95 ${s.range_cold_p50_ms}/${s.range_cold_p95_ms} ms, warm ${s.range_warm_p50_ms}/${s.range_warm_p95_ms} ms`);
  return {
    // Its own results file (bench/results/chunk-io-compression.*): `--compression-only` must not replace the full run's.
    suite: 'chunk-io-compression',
    results: { corpus_mib: total / MiB, stored: stored.map((s) => ({ ...s, ratio_to_restic: ratio(s) })) },
    table: {
      columns: [`stored bytes, ${total / MiB} MiB corpus`, 'MB', '× restic', 'ingest s', 'ingest CPU s', 'range cold p50/p95 ms', 'range warm p50/p95 ms'],
      rows: stored.map((s) => [
        s.variant,
        round(s.stored_bytes / 1e6, 2),
        ratio(s) ?? '—',
        s.ingest_s,
        Number.isNaN(s.ingest_cpu_s) ? '—' : s.ingest_cpu_s,
        s.range_cold_p50_ms === undefined ? '—' : `${s.range_cold_p50_ms}/${s.range_cold_p95_ms}`,
        s.range_warm_p50_ms === undefined ? '—' : `${s.range_warm_p50_ms}/${s.range_warm_p95_ms}`,
      ]),
    },
    notes: [
      `Stored bytes (pack files on disk, headers included; restic: repository growth, index included): ${stored.map(line).join('; ')}.`,
      'The random half is incompressible for every variant; the differences are the log-like and JSON files. Range reads: openRehydration of 4 KiB at 60 seeded offsets of the log-like object on a store opened fresh (no decoded frame cached; the OS page cache is warm), then the same reads again.',
    ],
  };
}

function dirSize(dir: string): number {
  let n = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) n += dirSize(full);
    else if (entry.isFile()) n += statSync(full).size;
  }
  return n;
}
