/**
 * object-exact-v1 on a deployment (spec: Benchmark suites): random,
 * repeated, log-like, shifted, JSON, compressed and encrypted-like files put
 * through a scratch svc over HTTP, one multipart upload, range reads; every
 * object read back and compared with what was sent. Reports write and read
 * throughput, stored bytes, metadata overhead and rehydration correctness,
 * with the SHA-256 floor and a bare HTTP server as anchors from the same run.
 *
 * `npm run bench -- object-exact-v1` is the offline superset (chunk-size and
 * zstd sweeps, restic side by side); both use the same corpus generators.
 */
import { createHash } from 'node:crypto';
import { round, summarize, type BenchReport } from '../bench-report.ts';
import { measureSha256MiBps } from '../anchors/sha256-floor.ts';
import { startStaticHttp } from '../anchors/static-http.ts';
import { CORPUS_KINDS, corpusFile, withInsertedByte } from '../corpus/corpus-files.ts';
import { makeRequester, runLoad } from '../http-load.ts';
import { startScratchDeployment } from '../scratch-deployment.ts';
import type { ProductSuite, SuiteInput } from '../suite.ts';
import { SUITE_INFO } from '../suite-info.ts';

const MiB = 1024 * 1024;
const STEPS = 5;

function sha256(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex');
}

interface PutAnswer {
  manifest_id?: string;
  details?: { bytes_in?: number; bytes_stored?: number };
}

async function run({ budget, progress }: SuiteInput): Promise<BenchReport> {
  const deadline = performance.now() + budget.max_seconds * 1000;
  // Eight files (six kinds, a base and its one-byte-shifted copy) plus the multipart object.
  const size = Math.max(64 * 1024, Math.min(16 * MiB, Math.floor(budget.max_bytes / 10 / 65536) * 65536));
  progress({ phase: 'generating corpus', step: 1, steps: STEPS });
  const files: Array<{ name: string; data: Buffer }> = CORPUS_KINDS.map((kind) => ({ name: kind, data: corpusFile(kind, size, 'object-exact-v1') }));
  const base = corpusFile('random', size, 'object-exact-v1-shift');
  files.push({ name: 'shift-base', data: base }, { name: 'shifted', data: withInsertedByte(base) });
  const svc = await startScratchDeployment();
  const client = makeRequester({ name: 'svc', url: svc.url, headers: { 'x-api-key': svc.adminKey } });
  const staticHttp = await startStaticHttp(files.map((f) => f.data));
  const floor = makeRequester({ name: 'floor', url: staticHttp.url, headers: {} });
  const failures: string[] = [];
  try {
    progress({ phase: 'object puts', step: 2, steps: STEPS });
    const perKind: Record<string, { bytes_in: number; bytes_stored: number; put_ms: number; get_ms: number; exact: boolean }> = {};
    let putMs = 0;
    let getMs = 0;
    let manifestBytes = 0;
    for (const f of files) {
      if (performance.now() > deadline) break;
      const put = await client.post('/v1/s3/objects', { tenant: 'bench', bucket: 'object-exact', key: f.name, body_base64: Buffer.from(f.data).toString('base64'), mode: 'enforce' });
      if (put.status !== 200 && put.status !== 201) {
        failures.push(`put ${f.name}: HTTP ${put.status}`);
        continue;
      }
      const m = JSON.parse(put.body) as PutAnswer;
      const get = await client.send('POST', '/v1/s3/objects/get', { tenant: 'bench', bucket: 'object-exact', key: f.name });
      const exact = get.status === 200 && sha256(get.body) === sha256(f.data);
      if (!exact) failures.push(`get ${f.name}: not bit-exact (HTTP ${get.status})`);
      if (m.manifest_id) {
        const manifest = await client.send('GET', `/v1/manifests/${m.manifest_id}`);
        manifestBytes += manifest.body.byteLength;
      }
      perKind[f.name] = { bytes_in: f.data.byteLength, bytes_stored: m.details?.bytes_stored ?? 0, put_ms: round(put.ms), get_ms: round(get.ms), exact };
      putMs += put.ms;
      getMs += get.ms;
    }
    const kinds = Object.values(perKind);
    const bytesIn = kinds.reduce((s, k) => s + k.bytes_in, 0);
    const bytesStored = kinds.reduce((s, k) => s + k.bytes_stored, 0);

    progress({ phase: 'multipart upload', step: 3, steps: STEPS });
    const partSize = Math.max(5 * MiB, size);
    const parts = [corpusFile('log-like', partSize, 'mp-1'), corpusFile('json', partSize, 'mp-2'), corpusFile('random', Math.floor(size / 2), 'mp-3')];
    let multipartExact = false;
    const created = await client.post('/v1/s3/multipart/create', { tenant: 'bench', bucket: 'object-exact', key: 'multipart' });
    if (created.status < 300 && performance.now() < deadline) {
      const { upload_id } = JSON.parse(created.body) as { upload_id: string };
      const sent: Array<{ part_number: number; sha256: string }> = [];
      for (const [i, p] of parts.entries()) {
        const r = await client.post('/v1/s3/multipart/part', { upload_id, part_number: i + 1, body_base64: Buffer.from(p).toString('base64') });
        if (r.status >= 300) failures.push(`multipart part ${i + 1}: HTTP ${r.status}`);
        sent.push({ part_number: i + 1, sha256: (JSON.parse(r.body) as { sha256: string }).sha256 });
      }
      const done = await client.post('/v1/s3/multipart/complete', { upload_id, parts: sent });
      const whole = Buffer.concat(parts);
      const get = await client.send('POST', '/v1/s3/objects/get', { tenant: 'bench', bucket: 'object-exact', key: 'multipart' });
      multipartExact = done.status < 300 && get.status === 200 && sha256(get.body) === sha256(whole);
      if (!multipartExact) failures.push(`multipart: not bit-exact (complete HTTP ${done.status}, get HTTP ${get.status})`);
    } else failures.push(`multipart create: HTTP ${created.status}`);

    progress({ phase: 'range reads', step: 4, steps: STEPS });
    const rangeLength = 64 * 1024;
    let rangeMismatches = 0;
    const source = files[2]!; // log-like: compressed chunks, the harder read
    const ranges = await runLoad(200, 1, async (i) => {
      const start = (i * 7919 * 4096) % Math.max(1, source.data.byteLength - rangeLength);
      const r = await client.send('POST', '/v1/s3/objects/range', { tenant: 'bench', bucket: 'object-exact', key: source.name, range: { start, end: start + rangeLength - 1 } });
      if (r.status === 206 && sha256(r.body) !== sha256(source.data.subarray(start, start + rangeLength))) rangeMismatches++;
      return { ms: r.ms, status: r.status === 206 ? 200 : r.status };
    }, deadline);
    if (rangeMismatches > 0 || ranges.errors > 0) failures.push(`${rangeMismatches} range reads differed, ${ranges.errors} failed`);

    progress({ phase: 'anchors', step: 5, steps: STEPS });
    const shaMiBps = measureSha256MiBps(files.map((f) => f.data));
    const floorReads = await runLoad(files.length, 1, (i) => floor.send('GET', `/${i}`));
    const floorMiBps = bytesIn / MiB / Math.max(floorReads.seconds, 1e-6);
    const writeMiBps = bytesIn / MiB / Math.max(putMs / 1000, 1e-6);
    const readMiBps = bytesIn / MiB / Math.max(getMs / 1000, 1e-6);
    const rangeS = summarize(ranges.latencies);
    const results = {
      exact: failures.length === 0,
      failures,
      object_bytes: size,
      write_mib_per_s: round(writeMiBps, 1),
      read_mib_per_s: round(readMiBps, 1),
      sha256_floor_mib_per_s: round(shaMiBps, 1),
      bare_http_read_mib_per_s: round(floorMiBps, 1),
      read_fraction_of_bare_http: round(readMiBps / floorMiBps),
      bytes_in: bytesIn,
      bytes_stored: bytesStored,
      stored_ratio: round(bytesStored / Math.max(1, bytesIn)),
      metadata_bytes: manifestBytes,
      metadata_overhead: round(manifestBytes / Math.max(1, bytesIn), 5),
      shifted_copy_added_bytes: perKind['shifted']?.bytes_stored ?? null,
      multipart_exact: multipartExact,
      range_read_64k_ms: { p50: round(rangeS.p50), p95: round(rangeS.p95) },
      per_kind: perKind,
    };
    return {
      suite: 'object-exact-v1',
      results,
      table: {
        columns: ['metric', 'value'],
        rows: [
          ['objects (kinds + shifted copy) × size', `${files.length} × ${round(size / MiB, 2)} MiB`],
          ['write throughput (sequential puts)', `${results.write_mib_per_s} MiB/s (SHA-256 floor ${results.sha256_floor_mib_per_s} MiB/s)`],
          ['read throughput (sequential gets)', `${results.read_mib_per_s} MiB/s (bare HTTP ${results.bare_http_read_mib_per_s} MiB/s, ${results.read_fraction_of_bare_http})`],
          ['stored / received bytes', `${bytesStored} / ${bytesIn} (${results.stored_ratio})`],
          ['bytes a 1-byte insert added (shifted copy)', results.shifted_copy_added_bytes ?? 'n/a'],
          ['metadata overhead (manifest JSON / bytes in)', results.metadata_overhead],
          ['64 KiB range read p50 / p95', `${results.range_read_64k_ms.p50} / ${results.range_read_64k_ms.p95} ms`],
          ['multipart upload bit-exact', multipartExact ? 'yes' : 'NO'],
          ['every object bit-exact', results.exact ? 'yes' : `NO: ${failures.join('; ')}`],
        ],
      },
      notes: ['Scratch svc over real HTTP on loopback (SQLite + local chunk directory); JSON envelope puts (base64).', 'Anchors in the same run: SHA-256 over the same bytes, and the same bytes served by a bare HTTP server.'],
    };
  } finally {
    client.close();
    floor.close();
    await staticHttp.close();
    await svc.close();
  }
}

export const objectExactV1: ProductSuite = { ...SUITE_INFO['object-exact-v1'], run };
