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
 * Corpus: the mix (random, random, log-like, JSON), `--mib N` per
 * kind (default 32, so 128 MiB in all; figures are scaled to one GiB).
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

export default async function chunkIo(args: string[]): Promise<BenchReport> {
  const mibArg = args.indexOf('--mib');
  const perKind = (mibArg >= 0 ? Number(args[mibArg + 1]) : 32) * MiB;
  const files = [corpusFile('random', perKind, 'chunk-io-a'), corpusFile('random', perKind, 'chunk-io-b'), corpusFile('log-like', perKind, 'chunk-io-log'), corpusFile('json', perKind, 'chunk-io-json')];
  const total = files.reduce((n, f) => n + f.length, 0);
  const perGiB = (x: number) => round((x * GiB) / total, 1);
  const scope = chunkScopeFor('tenant', 'bench');
  await countFsyncs();
  const work = mkdtempSync(path.join(os.tmpdir(), 'svc-chunk-io-'));
  const s3 = await startS3TestServer('chunk-io');
  const figures: Record<string, Counted> = {};
  let gcFigures: Record<string, number> = {};
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
  };
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
      `GC (packed filesystem store, grace 60 min, retention 0, clock moved 2 h between runs): the two random files deleted (${round(((gcFigures['deleted_share_of_input'] ?? 0) as number) * 100, 1)}% of the input): condemn run ${gcFigures['condemn_run_s_per_gib']} s/GiB, delete run ${gcFigures['delete_run_s_per_gib']} s/GiB, ${gcFigures['bytes_freed_per_gib']} bytes freed per GiB ingested, ${gcFigures['packs_deleted']} packs deleted, ${gcFigures['packs_repacked']} repacked; kept objects bit-exact: ${gcFigures['kept_exact'] ? 'yes' : 'NO'}.`,
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
