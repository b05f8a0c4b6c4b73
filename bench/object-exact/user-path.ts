/**
 * The user path of object-exact-v1: `svc execute --kind byte_object --bucket b
 * --file f1 --file f2 …` and `svc manifest rehydrate <id…> --out-dir d` (one
 * CLI process each, as `restic backup` / `restic restore` are run; or, in
 * `per-file` mode, one process per file and per object) against `svc serve`
 * in its own process (svc-process.ts), next to restic on the same files. Every figure is client wall time, start to exit, Node start-up
 * included — what a user waits for.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { dirSize } from './dir-size.ts';
import { resticBackup, resticEnv, resticInit, resticRestore } from './restic.ts';
import { API_KEY, runCli, type StartOptions, startSvc, type SvcServer, straceSyncCalls } from './svc-process.ts';
import { execFileSync } from 'node:child_process';
import type { ChunkScope } from '../../src/svc/chunk-store/chunk-scope.ts';
import { makeRequester } from '../../src/svc/benchmarks/http-load.ts';

const MiB = 1024 * 1024;

export interface UserFile {
  name: string;
  file: string;
  bytes: number;
  sha256: string;
}

export interface UserRound {
  ingestMs: number;
  restoreMs: number;
  /**
   * The whole state dir (packs, SQLite database with the pack index and manifests, ledger) at rest: after the
   * server stopped, as restic's repository is measured after restic exits (SQLite has folded its WAL into the
   * database and removed it by then).
   */
  stateBytes: number;
  /** The same while the server still runs, its WAL (bounded at 4 MiB, truncated after 1 s without writes) included. */
  stateBytesRunning: number;
  /** The chunk directory alone. */
  chunkBytes: number;
  /** Chunk-directory growth from the last file (the 1-byte-shifted copy). */
  insertChunkBytes: number;
  /** bytes_stored the server reported for the last file. */
  insertReportedBytes: number;
  exact: number;
  manifests: Array<{ name: string; manifest_id: string; sha256: string }>;
}

const sha256File = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

interface ExecuteAnswer {
  manifest_id?: string;
  output?: { sha256?: string; manifest_id?: string };
  details?: { bytes_stored?: number; manifest_id?: string };
  manifest?: { manifest_id?: string; bytes_stored?: number };
}

function manifestIdOf(a: ExecuteAnswer): string {
  const id = a.manifest_id ?? a.output?.manifest_id ?? a.details?.manifest_id ?? a.manifest?.manifest_id;
  if (!id) throw new Error(`no manifest id in the execute answer: ${JSON.stringify(a).slice(0, 300)}`);
  return id;
}

/**
 * How the CLI is driven: `batch` — one `svc execute` process for all the files
 * (`--file` repeated, the CLI's default `--jobs`) and one `svc manifest
 * rehydrate … --out-dir` for all the objects, as a user moving several files
 * runs it and as restic is run; `per-file` — one process per file and per
 * object (the previous user path, start-up paid every time).
 */
export type CliMode = 'batch' | 'per-file';

/** Ingests the files through the CLI, in order. */
export async function ingestFiles(server: SvcServer, files: UserFile[], bucket: string, nodeFlags: string[] = [], mode: CliMode = 'batch') {
  const manifests: UserRound['manifests'] = [];
  let ms = 0;
  const answers: ExecuteAnswer[] = [];
  if (mode === 'batch') {
    const r = await runCli(['--json', 'execute', '--kind', 'byte_object', '--bucket', bucket, ...files.flatMap((f) => ['--file', f.file])], server, nodeFlags);
    ms = r.ms;
    // One --file prints its result alone; several print one { file, result } per file.
    const out = JSON.parse(r.stdout) as ExecuteAnswer | Array<{ result: ExecuteAnswer }>;
    if (Array.isArray(out)) for (const item of out) answers.push(item.result);
    else answers.push(out);
  } else {
    for (const f of files) {
      const r = await runCli(['--json', 'execute', '--kind', 'byte_object', '--file', f.file, '--bucket', bucket, '--key', f.name], server, nodeFlags);
      ms += r.ms;
      answers.push(JSON.parse(r.stdout) as ExecuteAnswer);
    }
  }
  for (const [i, answer] of answers.entries()) manifests.push({ name: files[i]!.name, manifest_id: manifestIdOf(answer), sha256: answer.output?.sha256 ?? '' });
  const last = answers.at(-1);
  return { ms, manifests, lastReported: last?.details?.bytes_stored ?? last?.manifest?.bytes_stored ?? 0 };
}

/** Restores every object through the CLI into `dir`; returns the wall time and how many came back bit-exact. */
export async function restoreFiles(server: SvcServer, files: UserFile[], manifests: UserRound['manifests'], dir: string, nodeFlags: string[] = [], mode: CliMode = 'batch') {
  mkdirSync(dir, { recursive: true });
  let ms = 0;
  const outOf = new Map<string, string>();
  if (mode === 'batch') {
    ms = (await runCli(['manifest', 'rehydrate', ...manifests.map((m) => m.manifest_id), '--out-dir', dir], server, nodeFlags)).ms;
    for (const m of manifests) outOf.set(m.name, path.join(dir, m.manifest_id));
  } else {
    for (const m of manifests) {
      ms += (await runCli(['manifest', 'rehydrate', m.manifest_id, '--out', path.join(dir, m.name)], server, nodeFlags)).ms;
      outOf.set(m.name, path.join(dir, m.name));
    }
  }
  const exact = files.filter((f) => outOf.has(f.name) && sha256File(outOf.get(f.name)!) === f.sha256).length;
  rmSync(dir, { recursive: true, force: true });
  return { ms, exact };
}

/** One svc round on a fresh state dir: ingest every file (the last is the 1-byte-shifted copy), then restore all. */
export async function svcUserRound(workDir: string, files: UserFile[], keepStateDir?: string, mode: CliMode = 'batch', serverEnv: Record<string, string> = {}): Promise<UserRound> {
  const stateDir = keepStateDir ?? path.join(workDir, `svc-user-${Date.now()}`);
  mkdirSync(stateDir, { recursive: true });
  const server = await startSvc(stateDir, { env: serverEnv });
  let stopped = false;
  try {
    const chunkDir = path.join(stateDir, 'chunks');
    const first = await ingestFiles(server, files.slice(0, -1), 'bench', [], mode);
    const beforeShift = dirSize(chunkDir);
    const shifted = await ingestFiles(server, files.slice(-1), 'bench', [], mode);
    const restore = await restoreFiles(server, files, [...first.manifests, ...shifted.manifests], path.join(workDir, 'svc-user-restore'), [], mode);
    const chunkBytes = dirSize(chunkDir);
    const stateBytesRunning = dirSize(stateDir);
    await server.stop();
    stopped = true;
    return {
      ingestMs: first.ms + shifted.ms,
      restoreMs: restore.ms,
      stateBytes: dirSize(stateDir),
      stateBytesRunning,
      chunkBytes,
      insertChunkBytes: chunkBytes - beforeShift,
      insertReportedBytes: shifted.lastReported,
      exact: restore.exact,
      manifests: [...first.manifests, ...shifted.manifests],
    };
  } finally {
    if (!stopped) await server.stop();
    if (!keepStateDir) rmSync(stateDir, { recursive: true, force: true });
  }
}

/**
 * 1 MiB range reads through `POST /v1/manifests/{id}/rehydrate` with a range: p50/p95 in ms. The client is
 * node:http with keep-alive (the benchmarks' requester), as the CLI's transfers are (byte-transfer.ts). Until
 * 2026-11-27 it was fetch, whose own cost per 1 MiB answer (undici's web streams, arrayBuffer()) was ~3 ms of the
 * p50 (decision 201).
 */
export async function httpRangeReads(server: SvcServer, manifestId: string, size: number, samples: number, seed = 7) {
  const latencies: number[] = [];
  const starts: number[] = [];
  let s = seed;
  for (let k = 0; k < samples; k++) {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    starts.push(s % (size - MiB));
  }
  const requester = makeRequester({ name: 'svc', url: server.url, headers: { 'x-api-key': API_KEY } });
  try {
    for (const start of starts) {
      const r = await requester.send('POST', `/v1/manifests/${manifestId}/rehydrate`, { range: { start, end: start + MiB - 1 } });
      if (r.status !== 206 || r.body.length !== MiB) throw new Error(`range read: ${r.status}, ${r.body.length} bytes`);
      latencies.push(r.ms);
    }
  } finally {
    requester.close();
  }
  latencies.sort((a, b) => a - b);
  const q = (p: number) => latencies[Math.min(latencies.length - 1, Math.ceil(p * latencies.length) - 1)]!;
  return { p50_ms: Math.round(q(0.5) * 1000) / 1000, p95_ms: Math.round(q(0.95) * 1000) / 1000, n: latencies.length };
}

/**
 * Range reads on a fresh server process over an existing state dir: "cold"
 * is the first pass (empty verified-chunk cache; the OS page cache is warm,
 * as it is for restic), "warm" the same ranges again.
 */
export async function userRangeReads(stateDir: string, targets: Array<{ label: string; manifestId: string; size: number }>, samples: number) {
  const server = await startSvc(stateDir);
  try {
    const out: Record<string, { cold: Awaited<ReturnType<typeof httpRangeReads>>; warm: Awaited<ReturnType<typeof httpRangeReads>> }> = {};
    for (const t of targets) {
      const cold = await httpRangeReads(server, t.manifestId, t.size, samples);
      const warm = await httpRangeReads(server, t.manifestId, t.size, samples);
      out[t.label] = { cold, warm };
    }
    return out;
  } finally {
    await server.stop();
  }
}

/**
 * Recompression (decision 207) the way an operator runs it: `svc gc` through
 * the CLI against a running server over the kept state, packs old enough at
 * once (`SVC_GC_RECOMPRESS_AFTER_MINUTES=0`; nothing is condemned: every
 * chunk is referenced and young). Then the state directory at rest, a full
 * restore through the CLI (checked), and range reads on the densified file.
 */
export async function svcRecompress(
  workDir: string,
  stateDir: string,
  files: UserFile[],
  manifests: UserRound['manifests'],
  rangeTarget: { manifestId: string; size: number },
  samples: number,
) {
  const server = await startSvc(stateDir, { env: { SVC_GC_RECOMPRESS_AFTER_MINUTES: '0' } });
  let gc: { ms: number; densifiedChunks: number; recompressedPacks: number; bytesFreed: number };
  try {
    const run = await runCli(['--json', 'gc'], server);
    const report = (JSON.parse(run.stdout) as { result: { packs: { recompressed: number; densified_chunks: number }; bytes_freed: number } }).result;
    gc = { ms: run.ms, densifiedChunks: report.packs.densified_chunks, recompressedPacks: report.packs.recompressed, bytesFreed: report.bytes_freed };
  } finally {
    await server.stop();
  }
  const stateBytes = dirSize(stateDir);
  const again = await startSvc(stateDir);
  let restore: { ms: number; exact: number };
  try {
    restore = await restoreFiles(again, files, manifests, path.join(workDir, 'svc-recompressed-restore'));
  } finally {
    await again.stop();
  }
  // On a fresh process, as userRangeReads always measures: the first pass finds no decoded frame in memory.
  const range = (await userRangeReads(stateDir, [{ label: 'dense_frames', ...rangeTarget }], samples))['dense_frames']!;
  return { gc, stateBytes, restoreMs: restore.ms, exact: restore.exact, range };
}

function countFiles(dir: string): number {
  let n = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile() && statSync(path.join(e.parentPath, e.name)).size > 0) n++;
  return n;
}

/**
 * Storage-side costs of ingesting `files` through the CLI, per GiB: files
 * created and fsync-family system calls of the server process (strace -c:
 * pack files, directories and SQLite's own), against restic backup under
 * the same strace; and S3 PUTs with the chunks on s3rver.
 */
export async function ioCounts(workDir: string, files: UserFile[], corpusDir: string, s3?: { env: Record<string, string>; puts: () => number }) {
  const total = files.reduce((n, f) => n + f.bytes, 0);
  const perGiB = (x: number) => Math.round(((x * 1024 * MiB) / total) * 10) / 10;
  const stateDir = path.join(workDir, 'svc-io');
  const summary = path.join(workDir, 'svc-io.strace');
  const server = await startSvc(stateDir, { straceSummary: summary } satisfies StartOptions);
  try {
    await ingestFiles(server, files, 'bench-io');
  } finally {
    await server.stop();
  }
  const svcFsyncs = straceSyncCalls(summary);
  const svcFiles = countFiles(path.join(stateDir, 'chunks'));
  const svcStateFiles = countFiles(stateDir);
  rmSync(stateDir, { recursive: true, force: true });

  const repo = path.join(workDir, 'restic-io');
  resticInit(repo);
  const resticSummary = path.join(workDir, 'restic-io.strace');
  execFileSync('strace', ['-f', '-c', '-e', 'trace=fsync,fdatasync,sync_file_range,syncfs', '-o', resticSummary, 'restic', '--repo', repo, '--no-cache', '--quiet', 'backup', ...files.map((f) => path.relative(corpusDir, f.file))], { cwd: corpusDir, env: resticEnv(), stdio: 'ignore' });
  const resticFsyncs = straceSyncCalls(resticSummary);
  const resticFiles = countFiles(repo);
  rmSync(repo, { recursive: true, force: true });

  let s3Puts: number | undefined;
  if (s3) {
    const s3State = path.join(workDir, 'svc-s3');
    const before = s3.puts();
    const s3Server = await startSvc(s3State, { env: s3.env });
    try {
      await ingestFiles(s3Server, files, 'bench-s3');
    } finally {
      await s3Server.stop();
    }
    s3Puts = s3.puts() - before;
    rmSync(s3State, { recursive: true, force: true });
  }
  return {
    corpus_mib: Math.round((total / MiB) * 10) / 10,
    svc: { chunk_files_per_gib: perGiB(svcFiles), state_files_per_gib: perGiB(svcStateFiles), fsyncs_per_gib: perGiB(svcFsyncs), s3_puts_per_gib: s3Puts === undefined ? null : perGiB(s3Puts) },
    restic: { files_per_gib: perGiB(resticFiles), fsyncs_per_gib: perGiB(resticFsyncs) },
  };
}

/**
 * svc garbage collection over the state a user-path round left (its real
 * packs and pack index): the objects named in `deleted` are presented to the
 * collector as tombstoned past their retention (deleting through the API is
 * policy-gated), the clock is moved past the grace period and the pack age
 * between the condemn run and the delete run (as chunk-io does). Returns the
 * time of both runs and the chunk-directory bytes freed; every kept object is
 * then restored from the library and checked.
 */
export async function svcGc(stateDir: string, manifests: UserRound['manifests'], deleted: Set<string>, files: UserFile[]) {
  const { openStore } = await import('../../src/svc/store/store.ts');
  const { FsPackFiles } = await import('../../src/svc/chunk-store/pack-files.ts');
  const { FsChunkStore } = await import('../../src/svc/chunk-store/fs-chunk-store.ts');
  const { PackedChunkStore } = await import('../../src/svc/chunk-store/packed-chunk-store.ts');
  const { GcService } = await import('../../src/svc/gc/gc-service.ts');
  const { LedgerAppender } = await import('../../src/svc/ledger/appender.ts');
  const { loadConfig } = await import('../../src/svc/config/load.ts');
  const { makePrincipal } = await import('../../src/svc/auth/principal.ts');
  const { openRehydration } = await import('../../src/svc/exact-bytes/rehydrate.ts');
  const root = path.join(stateDir, 'chunks');
  const db = await openStore({ stateDir });
  try {
    const store = new PackedChunkStore({ packs: new FsPackFiles({ root }), index: db.chunkPacks, legacy: new FsChunkStore({ root }) });
    const deletedIds = new Set(manifests.filter((m) => deleted.has(m.name)).map((m) => m.manifest_id));
    let now = Date.now();
    const config = loadConfig({ env: {}, overrides: { 'gc.grace_minutes': 60, 'gc.tombstone_retention_days': 0, 'gc.multipart_expiry_hours': null } }).config;
    const gc = new GcService({
      config,
      store,
      index: db.chunkPacks,
      leases: db.leases,
      manifests: {
        page: async (tenant, after, limit) =>
          (await db.manifests.page(tenant, after, limit)).map((m) => (deletedIds.has(m.manifest_id) ? { ...m, state: 'tombstoned' as const, state_reason: 'object_deleted', updated_at: new Date(now - 1000).toISOString() } : m)),
        markRetentionExpired: async () => true,
      },
      legalHolds: db.legalHolds,
      multipart: { expireAbandoned: async () => [] },
      ledger: new LedgerAppender(db.ledger),
      now: () => new Date(now),
    });
    const ctx = { principal: makePrincipal('bench', ['admin']), traceId: 'tr_bench_gc' } as Parameters<typeof gc.run>[0];
    const before = dirSize(root);
    now += 2 * 3_600_000;
    let t = performance.now();
    await gc.run(ctx);
    const condemnMs = performance.now() - t;
    now += 2 * 3_600_000;
    t = performance.now();
    const sweep = await gc.run(ctx);
    const deleteMs = performance.now() - t;
    const freed = before - dirSize(root);
    let keptExact = 0;
    let kept = 0;
    for (const m of manifests) {
      if (deletedIds.has(m.manifest_id)) continue;
      kept++;
      const row = await db.manifests.get(m.manifest_id);
      if (!row || row.kind !== 'byte_object') continue;
      const r = await openRehydration(row.chunks, { store, scope: row.chunk_scope as ChunkScope, expectedSha256: row.sha256 });
      const h = createHash('sha256');
      for await (const piece of r.stream) h.update(piece);
      if (h.digest('hex') === files.find((f) => f.name === m.name)?.sha256) keptExact++;
    }
    return { ms: condemnMs + deleteMs, condemnMs, deleteMs, freedBytes: freed, packsDeleted: sweep.packs.deleted, packsRepacked: sweep.packs.repacked, kept, keptExact };
  } finally {
    await db.close();
  }
}
