/**
 * object-exact-v1: the exact-bytes path (FastCDC + dedupe + per-chunk zstd +
 * filesystem chunk store) side by side with restic on the same deterministic
 * corpus, in the same run.
 *
 * Sections:
 * 1. chunking throughput (in memory, after warm-up);
 * 2. chunk-size sweep: ingest throughput, chunk count and bytes added by a
 *    1-byte insert into a 50 MiB file, per average chunk size (how the
 *    defaults were chosen);
 * 3. zstd level: stored bytes and encode time on compressible data;
 * 4. svc vs restic: ingest of the corpus, stored bytes, restore, and the
 *    bytes a 1-byte insert into a 50 MiB file adds;
 * 5. 1 MiB range reads (p50/p95) on compressed and raw objects, cold and
 *    through the verified-chunk cache;
 * 6. manifest write latency on SQLite;
 * 7. a multipart upload and a get through the real HTTP server;
 * 8. the user path (bench/object-exact/user-path.ts): `svc serve` in its own
 *    process as `npm start` runs it, `svc execute --kind byte_object --file`
 *    per file and `svc manifest rehydrate --out` per object (CLI processes),
 *    next to `restic backup` / `restic restore` of the same files, alternating
 *    rounds; stored bytes, the insert cost, range reads cold and warm over
 *    HTTP, files and fsyncs per GiB (strace of both), S3 PUTs per GiB (s3rver),
 *    GC time and bytes freed per GiB against restic forget + prune.
 *
 * `npm run bench -- object-exact-v1 [--size-mib N] [--issue-mib M] [--rounds R] [--quick]`
 * (N MiB per suite corpus kind, default 24; M MiB per file of the issue-12
 * corpus — random, random, log-like, JSON — default 50; `--quick`: 2 MiB
 * kinds, 4 MiB issue files, one round — a smoke run, not a result).
 */
import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { CORPUS_KINDS, corpusFile, withInsertedByte } from '../corpus/corpus-files.ts';
import { dirSize } from '../object-exact/dir-size.ts';
import { ensureRestic, resticBackup, resticInit, resticRestore } from '../object-exact/restic.ts';
import type { BenchReport } from '../report.ts';
import { round, summarize } from '../report.ts';
import { encodeChunk } from '../../src/svc/chunking/chunk-codec.ts';
import type { ChunkingParams } from '../../src/svc/chunking/chunking-params.ts';
import { DEFAULT_CHUNKING } from '../../src/svc/chunking/chunking-params.ts';
import { chunkBuffer } from '../../src/svc/chunking/stream-chunker.ts';
import { chunkScopeFor } from '../../src/svc/chunk-store/chunk-scope.ts';
import { FsChunkStore } from '../../src/svc/chunk-store/fs-chunk-store.ts';
import { FsPackFiles } from '../../src/svc/chunk-store/pack-files.ts';
import { PackedChunkStore } from '../../src/svc/chunk-store/packed-chunk-store.ts';
import { VerifiedChunkCache } from '../../src/svc/chunk-store/verified-chunk-cache.ts';
import { ReadBuffers } from '../../src/svc/chunk-store/read-buffers.ts';
import type { ChunkStore } from '../../src/svc/chunk-store/chunk-store.ts';
import { chunkIdOf } from '../../src/svc/chunk-store/chunk-id.ts';
import { newId } from '../../src/core/ids.ts';
import type { ByteManifest } from '../../src/svc/manifests/manifest.ts';
import { openStore } from '../../src/svc/store/store.ts';
import { createSvcApp } from '../../src/svc/app.ts';
import { loadConfig } from '../../src/svc/config/load.ts';
import { buildServer } from '../../src/svc/http/server.ts';
import type { IngestResult } from '../../src/svc/exact-bytes/ingest.ts';
import { ingest } from '../../src/svc/exact-bytes/ingest.ts';
import { openRehydration } from '../../src/svc/exact-bytes/rehydrate.ts';
import { chunkListSha256 } from '../../src/svc/exact-bytes/chunk-list-digest.ts';
import S3rver from 's3rver';
import { resticGc } from '../object-exact/restic.ts';
import { ioCounts, svcGc, svcRecompress, svcUserRound, type UserFile, type UserRound, userRangeReads } from '../object-exact/user-path.ts';
import { execFileSync } from 'node:child_process';

const MiB = 1024 * 1024;
const scope = chunkScopeFor('tenant', 'bench');

interface CorpusEntry {
  name: string;
  file: string;
  bytes: number;
  sha256: string;
}

function mbps(bytes: number, ms: number): number {
  return round(bytes / MiB / (ms / 1000), 1);
}

function readSource(file: string): AsyncIterable<Uint8Array> {
  return createReadStream(file, { highWaterMark: MiB });
}

function writeCorpus(dir: string, sizeMiB: number): { base: CorpusEntry[]; shifted: CorpusEntry } {
  const entries: CorpusEntry[] = [];
  const put = (name: string, data: Uint8Array): CorpusEntry => {
    const file = path.join(dir, name);
    writeFileSync(file, data);
    return { name, file, bytes: data.length, sha256: createHash('sha256').update(data).digest('hex') };
  };
  for (const kind of CORPUS_KINDS) entries.push(put(`${kind}.bin`, corpusFile(kind, sizeMiB * MiB)));
  const base50 = corpusFile('random', 50 * MiB, 'shift-base');
  entries.push(put('base-50mib.bin', base50));
  const shifted = put('base-50mib-shifted.bin', withInsertedByte(base50));
  return { base: entries, shifted };
}

/** Section 1: chunking alone, in memory. */
function chunkingThroughput(): { mbps_median: number; mbps_runs: number[] } {
  const data = corpusFile('random', 64 * MiB, 'chunking-speed');
  const runs: number[] = [];
  for (let k = 0; k < 7; k++) {
    const started = performance.now();
    let n = 0;
    for (const _ of chunkBuffer(data)) n++;
    if (k >= 2 && n > 0) runs.push(mbps(data.length, performance.now() - started)); // first two are JIT warm-up
  }
  return { mbps_median: summarize(runs).p50, mbps_runs: runs };
}

async function ingestAll(store: ChunkStore, entries: CorpusEntry[], params?: Partial<ChunkingParams>, zstdLevel?: number) {
  const results: IngestResult[] = [];
  const started = performance.now();
  // The size is known, as for a raw upload: large files hash and compress on the ingest worker as in the server (decision 189).
  for (const e of entries) results.push(await ingest(readSource(e.file), { store, scope, mode: 'enforce', chunking: params, zstdLevel, sizeHint: e.bytes }));
  return { ms: performance.now() - started, results };
}

/** Section 2: average chunk size sweep on the 50 MiB file and its shifted copy, plus the log file. */
async function chunkSizeSweep(workDir: string, corpus: { base: CorpusEntry[]; shifted: CorpusEntry }) {
  const base50 = corpus.base.find((e) => e.name === 'base-50mib.bin')!;
  const logs = corpus.base.find((e) => e.name === 'log-like.bin')!;
  const rows = [];
  for (const avg of [16, 32, 64, 128]) {
    const params = { avgSize: avg * 1024, minSize: (avg * 1024) / 4, maxSize: avg * 1024 * 4 };
    const root = path.join(workDir, `sweep-${avg}`);
    const store = new FsChunkStore({ root });
    const first = await ingestAll(store, [base50, logs], params);
    const shifted = await ingest(readSource(corpus.shifted.file), { store, scope, mode: 'enforce', chunking: params });
    rows.push({
      avg_kib: avg,
      ingest_mbps: mbps(base50.bytes + logs.bytes, first.ms),
      chunks_50mib: first.results[0]!.chunks.length,
      insert_added_kib: round(shifted.bytes_stored / 1024, 1),
      log_stored_ratio: round(first.results[1]!.bytes_stored / logs.bytes, 4),
    });
    rmSync(root, { recursive: true, force: true });
  }
  return rows;
}

/** Section 3: zstd level on compressible chunks (encode only). */
async function zstdLevels(corpus: { base: CorpusEntry[] }) {
  const data = Buffer.concat(['log-like.bin', 'json.bin'].map((n) => readFileSync(corpus.base.find((e) => e.name === n)!.file)));
  const chunks = [...chunkBuffer(data)];
  const rows = [];
  for (const level of [1, 3, 6]) {
    const started = performance.now();
    let stored = 0;
    for (let k = 0; k < chunks.length; k += 8) {
      const batch = await Promise.all(chunks.slice(k, k + 8).map((c) => encodeChunk(c, { zstdLevel: level })));
      for (const e of batch) stored += e.data.length;
    }
    rows.push({ level, stored_ratio: round(stored / data.length, 4), encode_mbps: mbps(data.length, performance.now() - started) });
  }
  return rows;
}

/** Buffers lent to the whole-object restores, one pool as `svc serve` keeps one (decision 173). */
const restoreBuffers = new ReadBuffers();
/** Restored bytes are written in blocks of this size, as the CLI's write buffer gathers them (byte-transfer.ts). */
const RESTORE_WRITE_BLOCK = 4 * MiB;

/**
 * A whole object read the way `svc serve` reads it for the rehydrate route: bound to the chunk list digest ingest
 * records in the manifest (each byte hashed once, decision 178) and read into lent buffers, each piece copied out
 * before the next is asked for (decisions 173, 195). Until 2026-11-27 this read hashed every byte twice and
 * allocated a buffer per chunk — a path the service does not take (decision 201).
 */
async function rehydrateTo(store: ChunkStore, result: IngestResult, file: string): Promise<void> {
  const r = await openRehydration(result.chunks, { store, scope, expectedSha256: result.sha256, expectedChunkListSha256: chunkListSha256(result.chunks), borrow: restoreBuffers });
  const out = await open(file, 'w');
  const block = Buffer.allocUnsafe(RESTORE_WRITE_BLOCK);
  let used = 0;
  try {
    for await (const piece of r.stream) {
      for (let at = 0; at < piece.length; ) {
        const n = Math.min(piece.length - at, block.length - used);
        block.set(piece.subarray(at, at + n), used);
        used += n;
        at += n;
        if (used === block.length) {
          await out.write(block, 0, used);
          used = 0;
        }
      }
    }
    if (used > 0) await out.write(block, 0, used);
  } finally {
    await out.close();
  }
}

function sha256File(file: string): string {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

/**
 * Chunk buffers lent to the range reads, as `svc serve` lends its rehydrate route's reads (one pool per process;
 * ranges borrow since decision 195). Without it this section measured a path the service does not take: a fresh
 * buffer per chunk, and its garbage collections.
 */
const rangeReadBuffers = new ReadBuffers();

/** Section 5: 1 MiB range reads. */
async function rangeReads(store: ChunkStore, result: IngestResult, samples: number) {
  const latencies: number[] = [];
  let seed = 7;
  for (let k = 0; k < samples + 20; k++) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const start = seed % (result.bytes_in - MiB);
    const started = performance.now();
    const r = await openRehydration(result.chunks, { store, scope, range: { start, end: start + MiB - 1 }, borrow: rangeReadBuffers });
    let n = 0;
    for await (const piece of r.stream) n += piece.length;
    if (n !== MiB) throw new Error(`range read returned ${n} bytes`);
    if (k >= 20) latencies.push(performance.now() - started); // 20 warm-up reads
  }
  const s = summarize(latencies);
  return { p50_ms: round(s.p50, 3), p95_ms: round(s.p95, 3), n: s.n };
}

/** Section 6: manifest write latency on SQLite (one row + the chunk index of a 1 MiB object, 16 chunks). */
async function manifestWrites(workDir: string, samples: number) {
  const stateDir = path.join(workDir, 'manifest-db');
  mkdirSync(stateDir);
  const store = await openStore({ databaseUrl: undefined, stateDir, pgSchema: undefined });
  const latencies: number[] = [];
  try {
    for (let k = 0; k < samples + 20; k++) {
      const chunks = Array.from({ length: 16 }, (_, c) => ({ id: chunkIdOf(Buffer.from(`${k}/${c}`)), offset: c * 65536, length: 65536, stored_length: 40000, codec: 'zstd' as const }));
      const now = new Date().toISOString();
      const m: ByteManifest = {
        manifest_id: newId('mf'), schema_version: 1, kind: 'byte_object', work_unit_id: newId('wu'), plan_id: newId('pl'), tenant: 'bench', logical_ref: `s3://bench/${k}`,
        contract: 'exact_bytes', mode: 'enforce', state: 'active', sha256: 'ab'.repeat(32), bytes_in: MiB, bytes_stored: 640000, chunk_scope: scope,
        chunking: { algorithm: 'fastcdc', gear: 'sha256-seed-v1', min_size: 16384, avg_size: 65536, max_size: 262144, normalization: 2 },
        chunks, applied_actions: ['hash', 'content_defined_chunk', 'dedupe', 'zstd'], verifier_status: 'unverified', cache_result: 'not_applicable',
        stats: { chunks_new: 16, chunks_reused: 0, bytes_deduplicated: 0, bytes_saved_by_compression: 0, would_store_bytes: 640000, detected_format: null },
        trace_id: 't', policy_bundle_id: 'pb_x', created_at: now, updated_at: now, state_reason: null,
      };
      const started = performance.now();
      await store.manifests.insert(m);
      if (k >= 20) latencies.push(performance.now() - started);
    }
  } finally {
    await store.close();
  }
  const s = summarize(latencies);
  return { p50_ms: round(s.p50, 3), p95_ms: round(s.p95, 3), n: s.n };
}

/** Section 7: a multipart upload and a get through the real HTTP server (SQLite), checked bit for bit. */
async function multipartThroughServer(workDir: string, corpus: { base: CorpusEntry[] }) {
  const stateDir = path.join(workDir, 'svc-state');
  mkdirSync(stateDir);
  const apiKey = 'bench-admin-key-0123456789abcdef';
  const env = { SVC_STATE_DIR: stateDir, SVC_LOCAL_API_KEY: apiKey, SVC_LOG_LEVEL: 'warn' };
  const app = await createSvcApp(loadConfig({ env, overrides: { 'server.port': 0 } }), { env });
  const server = await buildServer(app);
  const url = await server.listen({ host: '127.0.0.1', port: 0 });
  const call = async (route: string, body: unknown) => {
    const res = await fetch(`${url}${route}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify(body) });
    if (!res.ok) throw new Error(`${route}: ${res.status} ${await res.text()}`);
    return res;
  };
  try {
    const entry = corpus.base.find((e) => e.name === 'json.bin')!;
    const data = readFileSync(entry.file);
    const partBytes = 8 * MiB;
    const started = performance.now();
    const { upload_id } = (await (await call('/v1/s3/multipart/create', { bucket: 'bench', key: 'json.bin' })).json()) as { upload_id: string };
    const parts: Array<{ part_number: number; sha256: string }> = [];
    for (let n = 1, off = 0; off < data.length; n++, off += partBytes) {
      const r = (await (await call('/v1/s3/multipart/part', { upload_id, part_number: n, body_base64: data.subarray(off, off + partBytes).toString('base64') })).json()) as { sha256: string };
      parts.push({ part_number: n, sha256: r.sha256 });
    }
    const done = (await (await call('/v1/s3/multipart/complete', { upload_id, parts })).json()) as { output: { sha256: string }; details: { bytes_stored: number } };
    const uploadMs = performance.now() - started;
    const getStarted = performance.now();
    const got = Buffer.from(await (await call('/v1/s3/objects/get', { bucket: 'bench', key: 'json.bin' })).arrayBuffer());
    const getMs = performance.now() - getStarted;
    return {
      bytes: data.length,
      parts: parts.length,
      upload_mbps: mbps(data.length, uploadMs),
      get_mbps: mbps(data.length, getMs),
      exact: done.output.sha256 === entry.sha256 && got.equals(data),
      bytes_stored: done.details.bytes_stored,
    };
  } finally {
    await server.close();
    await app.close();
  }
}

function median(values: number[]): number {
  return summarize(values).p50;
}

interface SvcRound {
  store: ChunkStore;
  /** Closes the round's pack index (the kept round's, once the range reads are done). */
  close(): Promise<void>;
  /** Closes the store and measures it at rest: packs plus the index database. */
  sizeAtRest(): Promise<number>;
  results: IngestResult[];
  ingestMs: number;
  restoreMs: number;
  chunkBytes: number;
  metadataBytes: number;
  exact: number;
}

/**
 * A fresh chunk store as `svc serve` runs it by default: pack files under `<root>/chunks` with their index in a
 * SQLite database (synchronous FULL) under `root`, chunks compressed alone (`frame_codec: none`).
 */
async function packStore(root: string): Promise<{ store: PackedChunkStore; close(): Promise<void> }> {
  const db = await openStore({ databaseUrl: undefined, stateDir: root, pgSchema: undefined });
  const store = new PackedChunkStore({ packs: new FsPackFiles({ root: path.join(root, 'chunks') }), index: db.chunkPacks, frameCodec: 'none' });
  return { store, close: () => db.close() };
}

/** One svc round: ingest every file into a fresh store, then restore them all to files and check them. */
async function svcRound(workDir: string, allFiles: CorpusEntry[], keep: boolean): Promise<SvcRound> {
  const storeRoot = path.join(workDir, `svc-store-${Date.now()}`);
  mkdirSync(storeRoot, { recursive: true });
  const { store, close } = await packStore(storeRoot);
  const ingested = await ingestAll(store, allFiles);
  const restoreDir = path.join(workDir, 'svc-restore');
  mkdirSync(restoreDir);
  const started = performance.now();
  for (let k = 0; k < allFiles.length; k++) await rehydrateTo(store, ingested.results[k]!, path.join(restoreDir, allFiles[k]!.name));
  const restoreMs = performance.now() - started;
  const exact = allFiles.filter((e) => sha256File(path.join(restoreDir, e.name)) === e.sha256).length;
  rmSync(restoreDir, { recursive: true, force: true });
  const closeOnce = (() => {
    let closed: Promise<void> | undefined;
    return () => (closed ??= close());
  })();
  // Packs and their index at rest (the index database with its WAL folded in), as svc's state dir is measured.
  if (!keep) await closeOnce();
  const round: SvcRound = {
    store,
    close: closeOnce,
    results: ingested.results,
    ingestMs: ingested.ms,
    restoreMs,
    // The kept round is measured when it is closed, after the range reads (sizeAtRest).
    chunkBytes: keep ? 0 : dirSize(storeRoot),
    sizeAtRest: async () => {
      await closeOnce();
      return dirSize(storeRoot);
    },
    metadataBytes: ingested.results.reduce((n, r) => n + Buffer.byteLength(JSON.stringify(r.chunks)), 0),
    exact,
  };
  if (!keep) rmSync(storeRoot, { recursive: true, force: true });
  return round;
}

interface ResticRound {
  ingestMs: number;
  storedBytes: number;
  insertBytes: number;
  restoreMs: number;
  initBytes: number;
}

/** One restic round: fresh repository, backup of the base files, a second snapshot with the shifted file, restore of the latest. */
function resticRound(workDir: string, corpusDir: string, corpus: { base: CorpusEntry[] }, allFiles: CorpusEntry[]): ResticRound {
  const repo = path.join(workDir, 'restic-repo');
  rmSync(repo, { recursive: true, force: true });
  resticInit(repo);
  const initBytes = dirSize(repo);
  const base = resticBackup(repo, corpusDir, corpus.base.map((e) => e.name));
  // The second snapshot holds every file; restic skips the unchanged ones by size and mtime.
  const shifted = resticBackup(repo, corpusDir, allFiles.map((e) => e.name));
  const restoreDir = path.join(workDir, 'restic-restore');
  const restoreMs = resticRestore(repo, restoreDir);
  rmSync(restoreDir, { recursive: true, force: true });
  return { ingestMs: base.ms + shifted.ms, storedBytes: base.addedBytes + shifted.addedBytes, insertBytes: shifted.addedBytes, restoreMs, initBytes };
}

/** The issue-12 corpus (random, random, log-like, JSON at `mib` MiB each), written beside the suite's own files. */
function writeIssueCorpus(dir: string, mib: number): CorpusEntry[] {
  const kinds: Array<[string, 'random' | 'log-like' | 'json', string]> = [
    ['issue-random-a.bin', 'random', 'issue-12-a'],
    ['issue-random-b.bin', 'random', 'issue-12-b'],
    ['issue-log-like.bin', 'log-like', 'issue-12-log'],
    ['issue-json.bin', 'json', 'issue-12-json'],
  ];
  return kinds.map(([name, kind, seed]) => {
    const data = corpusFile(kind, mib * MiB, seed);
    const file = path.join(dir, name);
    writeFileSync(file, data);
    return { name, file, bytes: data.length, sha256: createHash('sha256').update(data).digest('hex') };
  });
}

interface ResticUserRound {
  ingestMs: number;
  restoreMs: number;
  storedBytes: number;
  insertBytes: number;
  exact: number;
}

/** restic on the user-path files: a snapshot of all but the shifted copy, a second with every file, then a restore of the latest. */
function resticUserRound(workDir: string, corpusDir: string, files: UserFile[]): ResticUserRound {
  const repo = path.join(workDir, 'restic-user-repo');
  rmSync(repo, { recursive: true, force: true });
  resticInit(repo);
  const init = dirSize(repo);
  const names = files.map((f) => f.name);
  const base = resticBackup(repo, corpusDir, names.slice(0, -1));
  const shifted = resticBackup(repo, corpusDir, names);
  const restoreDir = path.join(workDir, 'restic-user-restore');
  const restoreMs = resticRestore(repo, restoreDir);
  const exact = files.filter((f) => sha256File(path.join(restoreDir, f.name)) === f.sha256).length;
  rmSync(restoreDir, { recursive: true, force: true });
  const storedBytes = dirSize(repo) - init;
  rmSync(repo, { recursive: true, force: true });
  return { ingestMs: base.ms + shifted.ms, restoreMs, storedBytes, insertBytes: shifted.addedBytes, exact };
}

/** Section 8: the user path against restic, alternating rounds; then range reads, I/O counts and GC. */
async function userPath(workDir: string, corpusDir: string, files: UserFile[], issueFiles: UserFile[], rounds: number) {
  const bytes = files.reduce((n, f) => n + f.bytes, 0);
  const svcRounds: UserRound[] = [];
  const resticRounds: ResticUserRound[] = [];
  const keptState = path.join(workDir, 'svc-user-kept');
  for (let r = 0; r < rounds; r++) {
    // Alternate which side goes first, so neither always runs on a warmer machine.
    const svcFirst = r % 2 === 0;
    if (!svcFirst) resticRounds.push(resticUserRound(workDir, corpusDir, files));
    svcRounds.push(await svcUserRound(workDir, files, r === rounds - 1 ? keptState : undefined));
    if (svcFirst) resticRounds.push(resticUserRound(workDir, corpusDir, files));
  }
  // The previous user path once more, for comparison: one CLI process per file and per object.
  const perFile = await svcUserRound(workDir, files, undefined, 'per-file');
  // Denser chunks: the same round with storage.zstd_level 9 (decision 190), bytes against ingest speed.
  const level9 = await svcUserRound(workDir, files, undefined, 'batch', { SVC_ZSTD_LEVEL: '9' });
  const med = (xs: number[]) => summarize(xs).p50;
  const svcIngestMs = med(svcRounds.map((r) => r.ingestMs));
  const svcRestoreMs = med(svcRounds.map((r) => r.restoreMs));
  const resticIngestMs = med(resticRounds.map((r) => r.ingestMs));
  const resticRestoreMs = med(resticRounds.map((r) => r.restoreMs));
  const last = svcRounds.at(-1)!;
  // restic picks a random chunker polynomial for every repository, so its stored bytes and insert cost differ from
  // round to round (255-264 MiB on this corpus): the median round's, like the speeds. svc's are the same every round.
  const resticLast = { storedBytes: med(resticRounds.map((r) => r.storedBytes)), insertBytes: med(resticRounds.map((r) => r.insertBytes)) };
  const byName = new Map(last.manifests.map((m) => [m.name, m.manifest_id]));
  const sizeOf = (name: string) => files.find((f) => f.name === name)!.bytes;
  const logName = issueFiles[2]!.name;
  const randomName = issueFiles[0]!.name;
  const range = await userRangeReads(keptState, [
    { label: 'zstd_chunks', manifestId: byName.get(logName)!, size: sizeOf(logName) },
    { label: 'raw_chunks', manifestId: byName.get(randomName)!, size: sizeOf(randomName) },
  ], 100);

  // Recompression (decision 207): `svc gc` through the CLI densifies the text packs; stored bytes at rest after it,
  // and a restore and range reads from the dense frames.
  const recompressed = await svcRecompress(workDir, keptState, files, last.manifests, { manifestId: byName.get(logName)!, size: sizeOf(logName) }, 100);

  // GC: the two random files of the issue corpus are deleted, on both sides.
  const deleted = new Set([issueFiles[0]!.name, issueFiles[1]!.name]);
  const gc = await svcGc(keptState, last.manifests, deleted, files);
  const resticGcRun = resticGc(path.join(workDir, 'restic-gc'), corpusDir, files.map((f) => f.name), files.filter((f) => !deleted.has(f.name)).map((f) => f.name));
  rmSync(path.join(workDir, 'restic-gc'), { recursive: true, force: true });
  rmSync(keptState, { recursive: true, force: true });

  // Files, fsyncs and S3 PUTs: the issue corpus through the CLI once more (strace; s3rver).
  const s3dir = mkdtempSync(path.join(os.tmpdir(), 'object-exact-s3rver-'));
  const s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3dir, configureBuckets: [{ name: 'object-exact' }] });
  let puts = 0;
  // s3rver is a Koa application: it emits one 'event' per stored object.
  (s3 as unknown as { on(e: string, f: (x: { Records: Array<{ eventName: string }> }) => void): void }).on('event', (e) => {
    if (e.Records[0]?.eventName === 'ObjectCreated:Put') puts++;
  });
  const { port } = await s3.run();
  let io;
  try {
    const env = {
      SVC_CHUNK_BACKEND: 's3', SVC_S3_BUCKET: 'object-exact', SVC_S3_PREFIX: 'chunks', SVC_S3_REGION: 'us-east-1',
      SVC_S3_ENDPOINT: `http://127.0.0.1:${port}`, SVC_S3_FORCE_PATH_STYLE: 'true', AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER',
    };
    io = await ioCounts(workDir, issueFiles, corpusDir, { env, puts: () => puts });
  } finally {
    s3.httpServer?.closeAllConnections?.();
    await s3.close();
    rmSync(s3dir, { recursive: true, force: true });
  }

  const GiB = 1024 * MiB;
  const perGiB = (x: number) => (x * GiB) / bytes;
  const svcStartup = await cliStartupMs();
  return {
    corpus: { files: files.length, bytes, mib: round(bytes / MiB, 1) },
    rounds,
    per_round: {
      svc: svcRounds.map((r) => ({ ingest_mbps: mbps(bytes, r.ingestMs), restore_mbps: mbps(bytes, r.restoreMs) })),
      restic: resticRounds.map((r) => ({ ingest_mbps: mbps(bytes, r.ingestMs), restore_mbps: mbps(bytes, r.restoreMs) })),
    },
    svc: {
      ingest_ms: round(svcIngestMs, 1),
      ingest_mbps: mbps(bytes, svcIngestMs),
      restore_ms: round(svcRestoreMs, 1),
      restore_mbps: mbps(bytes, svcRestoreMs),
      state_dir_bytes: last.stateBytes,
      state_dir_bytes_while_running: last.stateBytesRunning,
      chunk_dir_bytes: last.chunkBytes,
      insert_chunk_dir_bytes: last.insertChunkBytes,
      insert_reported_bytes: last.insertReportedBytes,
      exact: `${Math.min(...svcRounds.map((r) => r.exact))}/${files.length}`,
      cli_start_ms: svcStartup,
      per_file_cli: { ingest_mbps: mbps(bytes, perFile.ingestMs), restore_mbps: mbps(bytes, perFile.restoreMs), exact: `${perFile.exact}/${files.length}` },
      zstd_level_9: {
        ingest_mbps: mbps(bytes, level9.ingestMs),
        restore_mbps: mbps(bytes, level9.restoreMs),
        state_dir_bytes: level9.stateBytes,
        stored_ratio: round(level9.stateBytes / resticLast.storedBytes, 3),
        ingest_ratio: round(resticIngestMs / level9.ingestMs, 2),
        exact: `${level9.exact}/${files.length}`,
      },
    },
    restic: {
      ingest_ms: round(resticIngestMs, 1),
      ingest_mbps: mbps(bytes, resticIngestMs),
      restore_ms: round(resticRestoreMs, 1),
      restore_mbps: mbps(bytes, resticRestoreMs),
      repo_bytes: resticLast.storedBytes,
      insert_bytes: resticLast.insertBytes,
      exact: `${Math.min(...resticRounds.map((r) => r.exact))}/${files.length}`,
    },
    // After `svc gc` recompressed the text packs (decision 207): the state at rest, and the CLI restore from it.
    after_recompression: {
      state_dir_bytes: recompressed.stateBytes,
      stored_ratio: round(recompressed.stateBytes / resticLast.storedBytes, 3),
      gc_ms: round(recompressed.gc.ms, 1),
      recompressed_packs: recompressed.gc.recompressedPacks,
      densified_chunks: recompressed.gc.densifiedChunks,
      bytes_freed: recompressed.gc.bytesFreed,
      restore_ms: round(recompressed.restoreMs, 1),
      restore_mbps: mbps(bytes, recompressed.restoreMs),
      restore_ratio: round(resticRestoreMs / recompressed.restoreMs, 2),
      exact: `${recompressed.exact}/${files.length}`,
      range_read_1mib_http: recompressed.range,
    },
    ratios: {
      ingest: round(resticIngestMs / svcIngestMs, 2),
      restore: round(resticRestoreMs / svcRestoreMs, 2),
      stored_bytes: round(last.stateBytes / resticLast.storedBytes, 3),
      stored_bytes_after_recompression: round(recompressed.stateBytes / resticLast.storedBytes, 3),
    },
    range_read_1mib_http: range,
    io,
    gc: {
      svc: { s_per_gib: round(perGiB(gc.ms) / 1000, 3), condemn_ms: round(gc.condemnMs, 1), delete_ms: round(gc.deleteMs, 1), bytes_freed_per_gib: Math.round(perGiB(gc.freedBytes)), packs_deleted: gc.packsDeleted, packs_repacked: gc.packsRepacked, kept_exact: `${gc.keptExact}/${gc.kept}` },
      restic: { s_per_gib: round(perGiB(resticGcRun.ms) / 1000, 3), bytes_freed_per_gib: Math.round(perGiB(resticGcRun.freedBytes)) },
    },
  };
}

/** Wall time of `svc manifest --help` (Node start-up and the imports of one command group, as `svc manifest rehydrate` pays them), median of 5. */
async function cliStartupMs(): Promise<number> {
  const { SVC_BIN } = await import('../object-exact/svc-process.ts');
  const xs: number[] = [];
  for (let k = 0; k < 5; k++) {
    const t = performance.now();
    execFileSync(process.execPath, [SVC_BIN, 'manifest', '--help'], { stdio: 'ignore' });
    xs.push(performance.now() - t);
  }
  return round(summarize(xs).p50, 1);
}

type UserPath = Awaited<ReturnType<typeof userPath>>;

/** The user-path rows of the table (CLI processes against a server process, beside restic). */
function userRows(u: UserPath): { rows: Array<Array<string | number>>; notes: string[]; targets: Record<string, boolean> } {
  const yes = (ok: boolean) => (ok ? 'met' : 'missed');
  const insertKiB = round(u.svc.insert_chunk_dir_bytes / 1024, 1);
  const targets = {
    user_ingest_ge_1_5x: u.ratios.ingest >= 1.5,
    user_restore_ge_1_5x: u.ratios.restore >= 1.5,
    user_stored_bytes_le_0_95x: u.ratios.stored_bytes <= 0.95,
    user_stored_bytes_after_recompression_le_0_95x: u.ratios.stored_bytes_after_recompression <= 0.95,
    user_restore_after_recompression_exact_100pct: u.after_recompression.exact === `${u.corpus.files}/${u.corpus.files}`,
    user_insert_le_256_kib: u.svc.insert_chunk_dir_bytes <= 256 * 1024,
    user_exact_100pct: u.svc.exact === `${u.corpus.files}/${u.corpus.files}`,
  };
  const r = u.range_read_1mib_http;
  const a = u.after_recompression;
  const io = u.io!;
  const rows: Array<Array<string | number>> = [
    [`USER PATH (CLI → svc serve) ingest, ${u.corpus.mib} MiB (MiB/s)`, u.svc.ingest_mbps, u.restic.ingest_mbps, `${u.ratios.ingest}×`, `≥ 1.5× (${yes(targets.user_ingest_ge_1_5x)})`],
    ['USER PATH full restore (MiB/s)', u.svc.restore_mbps, u.restic.restore_mbps, `${u.ratios.restore}×`, `≥ 1.5× (${yes(targets.user_restore_ge_1_5x)})`],
    ['USER PATH, one CLI process per file and per object: ingest / restore (MiB/s)', `${u.svc.per_file_cli.ingest_mbps} / ${u.svc.per_file_cli.restore_mbps}`, `${u.restic.ingest_mbps} / ${u.restic.restore_mbps}`, `${round(u.svc.per_file_cli.ingest_mbps / u.restic.ingest_mbps, 2)}× / ${round(u.svc.per_file_cli.restore_mbps / u.restic.restore_mbps, 2)}×`, ''],
    ['USER PATH stored bytes (MiB; svc: whole state dir at rest)', round(u.svc.state_dir_bytes / MiB, 2), round(u.restic.repo_bytes / MiB, 2), `${u.ratios.stored_bytes}×`, `≤ 0.95× (${yes(targets.user_stored_bytes_le_0_95x)})`],
    [
      'USER PATH stored bytes after `svc gc` recompressed (MiB; decision 207)',
      round(a.state_dir_bytes / MiB, 2),
      round(u.restic.repo_bytes / MiB, 2),
      `${u.ratios.stored_bytes_after_recompression}×`,
      `≤ 0.95× (${yes(targets.user_stored_bytes_after_recompression_le_0_95x)})`,
    ],
    [
      'USER PATH after recompression: `svc gc` (s) / full restore (MiB/s) / 1 MiB range p95 cold, warm (ms)',
      `${round(a.gc_ms / 1000, 1)} / ${a.restore_mbps} / ${a.range_read_1mib_http.cold.p95_ms}, ${a.range_read_1mib_http.warm.p95_ms}`,
      `— / ${u.restic.restore_mbps} / n/a`,
      `restore ${a.restore_ratio}×`,
      `exact ${a.exact} (${yes(targets.user_restore_after_recompression_exact_100pct)})`,
    ],
    [
      'USER PATH with storage.zstd_level 9: stored (MiB) / ingest / restore (MiB/s)',
      `${round(u.svc.zstd_level_9.state_dir_bytes / MiB, 2)} / ${u.svc.zstd_level_9.ingest_mbps} / ${u.svc.zstd_level_9.restore_mbps}`,
      `${round(u.restic.repo_bytes / MiB, 2)} / ${u.restic.ingest_mbps} / ${u.restic.restore_mbps}`,
      `${u.svc.zstd_level_9.stored_ratio}× / ${u.svc.zstd_level_9.ingest_ratio}× / ${round(u.svc.zstd_level_9.restore_mbps / u.restic.restore_mbps, 2)}×`,
      `exact ${u.svc.zstd_level_9.exact}`,
    ],
    ['USER PATH 1-byte insert into 50 MiB adds (KiB)', insertKiB, round(u.restic.insert_bytes / 1024, 1), '', `≤ 256 KiB (${yes(targets.user_insert_le_256_kib)})`],
    ['USER PATH 1 MiB range p95 over HTTP (ms), cold: zstd / raw', `${r['zstd_chunks']!.cold.p95_ms} / ${r['raw_chunks']!.cold.p95_ms}`, 'n/a', '', ''],
    ['USER PATH 1 MiB range p95 over HTTP (ms), warm: zstd / raw', `${r['zstd_chunks']!.warm.p95_ms} / ${r['raw_chunks']!.warm.p95_ms}`, 'n/a', '', ''],
    ['USER PATH files per GiB (chunk dir / restic repo)', io.svc.chunk_files_per_gib, io.restic.files_per_gib, '', ''],
    ['USER PATH fsyncs per GiB (strace, whole process)', io.svc.fsyncs_per_gib, io.restic.fsyncs_per_gib, '', ''],
    ['USER PATH S3 PUTs per GiB (s3rver)', io.svc.s3_puts_per_gib ?? 'n/a', 'n/a', '', ''],
    ['USER PATH GC (s per GiB ingested) / bytes freed per GiB', `${u.gc.svc.s_per_gib} / ${u.gc.svc.bytes_freed_per_gib}`, `${u.gc.restic.s_per_gib} / ${u.gc.restic.bytes_freed_per_gib}`, `${round(u.gc.restic.s_per_gib / u.gc.svc.s_per_gib, 2)}× faster`, ''],
    ['USER PATH bit-exact restores (svc / restic)', u.svc.exact, u.restic.exact, '', `100% (${yes(targets.user_exact_100pct)})`],
  ];
  const notes = [
    `User path: \`svc serve\` in its own process with npm start's node flags (SQLite, filesystem pack store, defaults); one \`svc --json execute --kind byte_object --bucket bench --file f1 --file f2 …\` process for the files (the CLI's default --jobs 2; the shifted copy in a second run, as restic's second snapshot) and one \`svc manifest rehydrate <id…> --out-dir d\` process for all objects (bin/svc.mjs, wall time start to exit; CLI start-up alone — \`svc manifest --help\` — ${u.svc.cli_start_ms} ms median). The per-file row: one more svc round with one \`svc execute … --file f --key f\` process per file and one \`svc manifest rehydrate <id> --out f\` per object (the previous user path). restic: \`restic backup\` of all files but the shifted copy, then of all files, and \`restic restore latest\`. Corpus: the issue-12 files (random, random, log-like, JSON) plus the suite's kinds, the 50 MiB file and its 1-byte-shifted copy (ingested last): ${u.corpus.files} files, ${u.corpus.mib} MiB. ${u.rounds} rounds, svc and restic alternating (and alternating which goes first); medians. Per round (MiB/s): ${JSON.stringify(u.per_round)}.`,
    `Stored bytes: svc's whole state dir at rest (packs, SQLite database with manifests and the pack index, ledger; measured after the server stopped, as restic's repository is measured after restic exits; while the server still ran, its WAL included: ${round(u.svc.state_dir_bytes_while_running / MiB, 2)} MiB) vs the restic repository's growth (the median round's: restic chooses a random chunker polynomial for every repository, so its stored bytes and insert cost change from round to round; svc's do not). The storage.zstd_level 9 row is one more svc round with only that setting changed (decision 190). Insert: growth of svc's chunk directory from the shifted file (the server reported ${u.svc.insert_reported_bytes} bytes stored) vs restic's second snapshot. Range reads: 100 random 1 MiB ranges per object through POST /v1/manifests/{id}/rehydrate (node:http keep-alive client, as the CLI's) on a freshly started server (cold: empty verified-chunk cache; page cache warm) and the same ranges again (warm).`,
    `Recompression (decision 207): after the range reads, \`svc --json gc\` through the CLI against a server over the kept round's state with SVC_GC_RECOMPRESS_AFTER_MINUTES=0 (defaults otherwise: zstd 17, 4 MiB frames; nothing is condemned, every chunk is referenced and young): ${a.recompressed_packs} packs rewritten, ${a.densified_chunks} chunks moved into dense frames, ${round(a.bytes_freed / MiB, 2)} MiB freed in ${round(a.gc_ms / 1000, 1)} s (CLI wall time). Then the state dir at rest, one full restore through the CLI (as above) and 100 range reads of the log-like file on a fresh server (cold, then warm).`,
    `Files and fsyncs: the issue-12 files (${io.corpus_mib} MiB) ingested through the CLI into a server under \`strace -f -c\` (fsync, fdatasync, sync_file_range, syncfs of every thread, SQLite's included), against \`restic backup\` of the same files under the same strace. S3 PUTs: the same ingest into a server with storage.chunk_backend s3 on s3rver (ObjectCreated:Put events, the readiness probe's included).`,
    `GC: the two issue-12 random files deleted. svc: the collector (GcService) over the last round's real packs and index, those two manifests presented as tombstoned past retention (the delete route is policy-gated), clock moved past grace and pack age: condemn ${u.gc.svc.condemn_ms} ms + delete ${u.gc.svc.delete_ms} ms, ${u.gc.svc.packs_deleted} packs deleted, ${u.gc.svc.packs_repacked} repacked, kept objects bit-exact ${u.gc.svc.kept_exact}. restic: a snapshot of all files, one without the two, \`restic forget\` of the first and \`restic prune\` (wall time of both).`,
  ];
  return { rows, notes, targets };
}

function userOnlyReport(u: UserPath): BenchReport {
  const { rows, notes, targets } = userRows(u);
  return { suite: 'object-exact-v1', results: { user_path: u, targets }, table: { columns: ['metric', 'svc', 'restic', 'ratio', 'target'], rows }, notes };
}

export default async function run(args: string[]): Promise<BenchReport> {
  const quick = args.includes('--quick');
  const sizeArg = args.indexOf('--size-mib');
  const sizeMiB = sizeArg >= 0 ? Number(args[sizeArg + 1]) : quick ? 2 : 24;
  const issueArg = args.indexOf('--issue-mib');
  const issueMiB = issueArg >= 0 ? Number(args[issueArg + 1]) : quick ? 4 : 50;
  const roundsArg = args.indexOf('--rounds');
  const rounds = roundsArg >= 0 ? Math.max(1, Number(args[roundsArg + 1])) : quick ? 1 : 3;
  const only = args.includes('--user-path-only');
  const resticVersion = ensureRestic();
  const workDir = mkdtempSync(path.join(os.tmpdir(), 'object-exact-v1-'));
  try {
    const corpusDir = path.join(workDir, 'corpus');
    mkdirSync(corpusDir);
    const corpus = writeCorpus(corpusDir, sizeMiB);
    const issueCorpus = writeIssueCorpus(corpusDir, issueMiB);
    // Section 8 first (the headline): the user path, CLI against a server process, beside restic.
    const user = await userPath(workDir, corpusDir, [...issueCorpus, ...corpus.base, corpus.shifted], issueCorpus, rounds);
    if (only) return userOnlyReport(user);
    const baseBytes = corpus.base.reduce((n, e) => n + e.bytes, 0);

    // Section 4 first: svc and restic alternate, `rounds` times, each round on
    // a fresh store and repository, so both see the same machine load; medians
    // are reported. The corpus is the base files plus the 1-byte-shifted copy,
    // ingested last (its stored bytes are the insert cost).
    const allFiles = [...corpus.base, corpus.shifted];
    const allBytes = baseBytes + corpus.shifted.bytes;
    const svcRounds: SvcRound[] = [];
    const resticRounds: ResticRound[] = [];
    for (let round = 0; round < rounds; round++) {
      const last = round === rounds - 1;
      svcRounds.push(await svcRound(workDir, allFiles, last));
      resticRounds.push(resticRound(workDir, corpusDir, corpus, allFiles));
    }
    const svcLast = svcRounds.at(-1)!;
    const { store, results: oursResults } = svcLast;
    const ours = { results: oursResults.slice(0, corpus.base.length) };
    const oursShifted = oursResults.at(-1)!;
    const oursIngestMs = median(svcRounds.map((r) => r.ingestMs));
    const oursRestoreMs = median(svcRounds.map((r) => r.restoreMs));
    const metadataBytes = svcLast.metadataBytes;
    const exact = Math.min(...svcRounds.map((r) => r.exact));
    const resticLast = resticRounds.at(-1)!;
    // restic's stored bytes vary with its per-repository random chunker polynomial: the median round's.
    const resticIngest = { ms: median(resticRounds.map((r) => r.ingestMs)), addedBytes: median(resticRounds.map((r) => r.storedBytes)) };
    const resticShifted = { addedBytes: median(resticRounds.map((r) => r.insertBytes)) };
    const resticRestoreMs = median(resticRounds.map((r) => r.restoreMs));
    const resticInitBytes = resticLast.initBytes;

    const chunking = chunkingThroughput();
    const sweep = await chunkSizeSweep(workDir, corpus);
    const levels = await zstdLevels(corpus);

    const logResult = ours.results[CORPUS_KINDS.indexOf('log-like')]!;
    const randomResult = ours.results[CORPUS_KINDS.indexOf('random')]!;
    // Cold: every read goes to disk and is verified. Warm: the verified-chunk cache the service runs with.
    const rangeCompressed = await rangeReads(store, logResult, 200);
    const rangeRaw = await rangeReads(store, randomResult, 200);
    const cached = new VerifiedChunkCache(store);
    const warmCompressed = await rangeReads(cached, logResult, 200);
    const warmRaw = await rangeReads(cached, randomResult, 200);
    const oursChunkBytes = await svcLast.sizeAtRest();
    const manifestWrite = await manifestWrites(workDir, 300);
    const multipart = await multipartThroughServer(workDir, corpus);

    const oursStored = oursChunkBytes + metadataBytes;
    const oursIngestMbps = mbps(allBytes, oursIngestMs);
    const resticIngestMbps = mbps(allBytes, resticIngest.ms);
    const ratios = {
      ingest_throughput: round(oursIngestMbps / resticIngestMbps, 2),
      stored_bytes: round(oursStored / resticIngest.addedBytes, 3),
      restore_speed: round(resticRestoreMs / oursRestoreMs, 2),
    };
    const targets = {
      ingest_throughput_ge_1_5x: ratios.ingest_throughput >= 1.5,
      stored_bytes_le_0_95x: ratios.stored_bytes <= 0.95,
      restore_ge_1_5x: ratios.restore_speed >= 1.5,
      insert_adds_le_256_kib: oursShifted.bytes_stored <= 256 * 1024,
      range_1mib_p95_le_2ms_warm: Math.max(warmCompressed.p95_ms, warmRaw.p95_ms) <= 2,
      range_1mib_p95_le_2ms_cold: Math.max(rangeCompressed.p95_ms, rangeRaw.p95_ms) <= 2,
      manifest_write_p95_le_1ms_sqlite: manifestWrite.p95_ms <= 1,
      rehydration_correctness_100pct: exact === allFiles.length && multipart.exact,
    };

    const per_kind = allFiles.map((e, k) => ({ file: e.name, bytes_in: e.bytes, bytes_stored: oursResults[k]!.bytes_stored, chunks: oursResults[k]!.chunks.length }));
    const userTable = userRows(user);
    const results = {
      user_path: user,
      user_targets: userTable.targets,
      corpus: { size_mib_per_kind: sizeMiB, files: allFiles.length, bytes: allBytes },
      rounds,
      per_round: { svc: svcRounds.map((r) => ({ ingest_mbps: mbps(allBytes, r.ingestMs), restore_mbps: mbps(allBytes, r.restoreMs) })), restic: resticRounds.map((r) => ({ ingest_mbps: mbps(allBytes, r.ingestMs), restore_mbps: mbps(allBytes, r.restoreMs) })) },
      defaults: DEFAULT_CHUNKING,
      chunking,
      chunk_size_sweep: sweep,
      zstd_levels: levels,
      svc: {
        ingest_ms: round(oursIngestMs, 1),
        ingest_mbps: oursIngestMbps,
        chunk_bytes: oursChunkBytes,
        metadata_bytes: metadataBytes,
        metadata_overhead_ratio: round(metadataBytes / allBytes, 5),
        stored_bytes: oursStored,
        restore_ms: round(oursRestoreMs, 1),
        restore_mbps: mbps(allBytes, oursRestoreMs),
        rehydration_exact: `${exact}/${allFiles.length}`,
        insert_added_bytes: oursShifted.bytes_stored,
        per_kind,
      },
      restic: {
        version: resticVersion,
        ingest_ms: round(resticIngest.ms, 1),
        ingest_mbps: resticIngestMbps,
        stored_bytes: resticIngest.addedBytes,
        repo_init_bytes: resticInitBytes,
        restore_ms: round(resticRestoreMs, 1),
        restore_mbps: mbps(allBytes, resticRestoreMs),
        insert_added_bytes: resticShifted.addedBytes,
      },
      range_read_1mib: { cold: { zstd_chunks: rangeCompressed, raw_chunks: rangeRaw }, warm: { zstd_chunks: warmCompressed, raw_chunks: warmRaw } },
      manifest_write_sqlite: manifestWrite,
      multipart_http: multipart,
      ratios,
      targets,
    };

    const yes = (ok: boolean) => (ok ? 'met' : 'missed');
    const rows: Array<Array<string | number>> = [
      ...userTable.rows,
      ['ingest throughput (MiB/s)', oursIngestMbps, resticIngestMbps, `${ratios.ingest_throughput}×`, `≥ 1.5× (${yes(targets.ingest_throughput_ge_1_5x)})`],
      ['stored bytes (MiB, incl. metadata)', round(oursStored / MiB, 2), round(resticIngest.addedBytes / MiB, 2), `${ratios.stored_bytes}×`, `≤ 0.95× (${yes(targets.stored_bytes_le_0_95x)})`],
      ['full restore (MiB/s)', mbps(allBytes, oursRestoreMs), mbps(allBytes, resticRestoreMs), `${ratios.restore_speed}×`, `≥ 1.5× (${yes(targets.restore_ge_1_5x)})`],
      ['1-byte insert into 50 MiB adds (KiB)', round(oursShifted.bytes_stored / 1024, 1), round(resticShifted.addedBytes / 1024, 1), '', `≤ 256 KiB (${yes(targets.insert_adds_le_256_kib)})`],
      ['1 MiB range read p95 (ms), warm cache: zstd / raw chunks', `${warmCompressed.p95_ms} / ${warmRaw.p95_ms}`, 'n/a', '', `≤ 2 ms (${yes(targets.range_1mib_p95_le_2ms_warm)})`],
      ['1 MiB range read p95 (ms), cold: zstd / raw chunks', `${rangeCompressed.p95_ms} / ${rangeRaw.p95_ms}`, 'n/a', '', `≤ 2 ms (${yes(targets.range_1mib_p95_le_2ms_cold)})`],
      ['manifest write p95 (ms, SQLite, 16-chunk manifest)', manifestWrite.p95_ms, 'n/a', '', `≤ 1 ms (${yes(targets.manifest_write_p95_le_1ms_sqlite)})`],
      [`multipart upload over HTTP (MiB/s, ${multipart.parts} × 8 MiB parts) / get`, `${multipart.upload_mbps} / ${multipart.get_mbps}`, 'n/a', '', multipart.exact ? 'bit-exact' : 'NOT EXACT'],
      ['rehydration correctness', `${exact}/${allFiles.length}${multipart.exact ? ' + multipart' : ''}`, '', '', `100% (${yes(targets.rehydration_correctness_100pct)})`],
      ['metadata overhead (chunk lists / bytes in)', `${round(100 * results.svc.metadata_overhead_ratio, 3)}%`, '', '', ''],
      ['chunking alone (MiB/s, median)', chunking.mbps_median, '', '', '≥ 500'],
    ];
    const notes = [
      `Corpus: ${CORPUS_KINDS.join(', ')} at ${sizeMiB} MiB each, a 50 MiB random file, then the same file with 1 byte inserted in the middle (ingested last; its stored bytes are the insert cost). Throughput, stored bytes and restore cover the whole corpus. ${resticVersion}, repository v2 (zstd auto), --no-cache; restic's second snapshot holds all files and skips unchanged ones.`,
      `Chunk-size sweep (avg KiB → ingest MiB/s, chunks per 50 MiB, KiB added by the insert, log stored ratio): ${sweep.map((r) => `${r.avg_kib} → ${r.ingest_mbps}, ${r.chunks_50mib}, ${r.insert_added_kib}, ${r.log_stored_ratio}`).join('; ')}.`,
      `zstd level (stored ratio, encode MiB/s) on log+JSON chunks: ${levels.map((r) => `${r.level}: ${r.stored_ratio}, ${r.encode_mbps}`).join('; ')}.`,
      `Both sides read the corpus from the page cache and fsync what they write. svc and restic alternate for ${rounds} rounds (fresh store and repository each); throughput and restore are medians. The machine is shared with other workloads, so absolute figures vary between runs.`,
    ];
    return { suite: 'object-exact-v1', results, table: { columns: ['metric', 'svc', 'restic', 'ratio', 'target'], rows }, notes: [...userTable.notes, 'Rows without USER PATH: the library pipeline in the bench process (ingest with each file\'s size known, so large files hash and compress on the ingest worker as in the server; openRehydration bound to the chunk list digest and reading into lent buffers, as the rehydrate route does, written out in 4 MiB blocks) on the store `svc serve` runs by default: pack files with their index in SQLite, chunks compressed alone. Until decision 190 these rows measured the old one-file-per-chunk layout (FsChunkStore). Stored bytes: packs plus the index database at rest, plus the chunk lists (the manifests\' share). The chunk-size sweep still uses the old layout (it compares chunk sizes, not stores).', ...notes] };
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }
}
