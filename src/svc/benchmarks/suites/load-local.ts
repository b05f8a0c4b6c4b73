/**
 * load-local-v1 (spec: Benchmark suites): a bounded local load run against a
 * scratch svc over real HTTP. Every figure comes with the anchor it is
 * compared with, measured in the same run by the same client:
 *
 * | figure                         | anchor                                              |
 * |--------------------------------|-----------------------------------------------------|
 * | object ingest MiB/s            | SHA-256 over the same bytes; the same JSON bodies POSTed to a bare HTTP server |
 * | rehydration p95 ms             | the same bytes served by a bare HTTP server          |
 * | AI gateway p95 ms              | a bare proxy hop to the same mock upstream           |
 * | exact cache writes/s, lookups/s| a bare HTTP server at the same concurrency           |
 * | manifest store writes/s        | durable SQLite commits/s (one fsync each)            |
 *
 * Every ratio is svc's figure over the anchor's: for rates 1.0 means as fast
 * as the anchor, for latencies 1.0 means nothing added.
 */
import { createHash } from 'node:crypto';
import { round, summarize, type BenchReport } from '../bench-report.ts';
import { startBareProxy } from '../anchors/bare-proxy.ts';
import { measureCommitFloor } from '../anchors/commit-floor.ts';
import { measureSha256MiBps } from '../anchors/sha256-floor.ts';
import { startStaticHttp } from '../anchors/static-http.ts';
import { corpusFile } from '../corpus/corpus-files.ts';
import { makeRequester, runLoad } from '../http-load.ts';
import { startScratchDeployment } from '../scratch-deployment.ts';
import type { ProductSuite, SuiteInput } from '../suite.ts';
import { SUITE_INFO } from '../suite-info.ts';

const MiB = 1024 * 1024;
const OBJECT_BYTES = MiB;
const INGEST_CONCURRENCY = 4;
const CACHE_CONCURRENCY = 8;
const STEPS = 6;

function sha256(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex');
}

function cacheKey(i: number): string {
  return `ck_${createHash('sha256').update(`load-local-v1 cache ${i}`).digest('hex')}`;
}

async function run({ budget, progress }: SuiteInput): Promise<BenchReport> {
  const started = performance.now();
  const end = started + budget.max_seconds * 1000;
  // Each phase may use its share of what is left, so an early slow phase cannot starve the later ones of all time.
  const phaseEnd = (share: number) => Math.min(end, performance.now() + (end - performance.now()) * share);
  progress({ phase: 'starting scratch deployment', step: 1, steps: STEPS });
  const svc = await startScratchDeployment();
  const auth = { 'x-api-key': svc.adminKey };
  const client = makeRequester({ name: 'svc', url: svc.url, headers: auth });
  const objectCount = Math.max(2, Math.min(64, Math.floor((budget.max_bytes * 0.9) / OBJECT_BYTES)));
  // Half incompressible, half log-like text: the two ends of what svc stores.
  const objects = Array.from({ length: objectCount }, (_, i) => corpusFile(i % 2 === 0 ? 'random' : 'log-like', OBJECT_BYTES, `load-local-${i}`));
  const staticHttp = await startStaticHttp(objects);
  const floor = makeRequester({ name: 'floor', url: staticHttp.url, headers: {} });
  const bare = await startBareProxy(svc.upstreamUrl);
  const viaBare = makeRequester({ name: 'bare', url: bare.url, headers: {} });
  const failures: string[] = [];
  try {
    // 2. Object ingest.
    progress({ phase: 'object ingest', step: 2, steps: STEPS });
    const putBody = (i: number) => ({ bucket: 'load-local', key: `object-${i}`, body_base64: Buffer.from(objects[i]!).toString('base64'), mode: 'enforce' });
    const ingest = await runLoad(objectCount, INGEST_CONCURRENCY, (i) => client.post('/v1/s3/objects', { tenant: 'bench', ...putBody(i) }), phaseEnd(0.35));
    const ingestedBytes = ingest.latencies.length * OBJECT_BYTES;
    const ingestMiBps = ingestedBytes / MiB / ingest.seconds;
    const transport = await runLoad(ingest.sent, INGEST_CONCURRENCY, (i) => floor.post(`/${i}`, putBody(i)));
    const transportMiBps = (transport.latencies.length * OBJECT_BYTES) / MiB / transport.seconds;
    const shaMiBps = measureSha256MiBps(objects.slice(0, ingest.sent));
    if (ingest.errors > 0) failures.push(`${ingest.errors} object puts failed`);

    // 3. Rehydration: whole objects back through the verified path; bytes compared with what was sent.
    progress({ phase: 'rehydration', step: 3, steps: STEPS });
    const stored = ingest.sent - ingest.errors;
    const reads = Math.max(stored, Math.min(200, stored * 4));
    let mismatches = 0;
    const rehydrate = await runLoad(reads, 2, async (i) => {
      const r = await client.send('POST', '/v1/s3/objects/get', { tenant: 'bench', bucket: 'load-local', key: `object-${i % stored}` });
      if (r.status === 200 && sha256(r.body) !== sha256(objects[i % stored]!)) mismatches++;
      return r;
    }, phaseEnd(0.3));
    const staticReads = await runLoad(rehydrate.sent, 2, (i) => floor.send('GET', `/${i % stored}`));
    if (mismatches > 0) failures.push(`${mismatches} rehydrations returned other bytes`);
    if (rehydrate.errors > 0) failures.push(`${rehydrate.errors} rehydrations failed`);

    // 4. AI gateway, sequential, unique prompts (every request a cache miss that reaches the upstream).
    progress({ phase: 'AI gateway', step: 4, steps: STEPS });
    const chat = (i: number, prefix: string) => ({ model: 'mock-small', messages: [{ role: 'user', content: `${prefix} load-local probe ${i}` }], max_tokens: 16 });
    for (let i = 0; i < 20; i++) await client.post('/v1/chat/completions', chat(i, 'warm-up'));
    const gateway = await runLoad(300, 1, (i) => client.post('/v1/chat/completions', chat(i, 'svc')), phaseEnd(0.35));
    const hop = await runLoad(gateway.sent, 1, (i) => viaBare.post('/chat/completions', chat(i, 'bare')));
    if (gateway.errors > 0) failures.push(`${gateway.errors} gateway requests failed`);

    // 5. Exact cache index: stores, then lookups of the same keys.
    progress({ phase: 'exact cache', step: 5, steps: STEPS });
    const cacheOps = 1000;
    const writes = await runLoad(cacheOps, CACHE_CONCURRENCY, (i) => client.post('/v1/cache/store', { tenant: 'bench', key: cacheKey(i), value: { text: `answer ${i}` }, verification: { type: 'non_empty_text' } }), phaseEnd(0.45));
    let lookupMisses = 0;
    const lookups = await runLoad(writes.sent, CACHE_CONCURRENCY, async (i) => {
      const r = await client.post('/v1/cache/exact/lookup', { tenant: 'bench', key: cacheKey(i) });
      if (r.status === 200 && !(JSON.parse(r.body) as { hit?: boolean }).hit) lookupMisses++;
      return r;
    }, phaseEnd(0.5));
    const cacheFloor = await runLoad(writes.sent, CACHE_CONCURRENCY, (i) => floor.post('/none', { key: cacheKey(i), value: { text: `answer ${i}` } }));
    if (writes.errors + lookups.errors > 0) failures.push(`${writes.errors + lookups.errors} cache calls failed`);
    if (lookupMisses > 0) failures.push(`${lookupMisses} lookups missed a stored key`);

    // 6. Manifest store: small puts, one manifest each, concurrent (group commit shares fsyncs).
    progress({ phase: 'manifest store', step: 6, steps: STEPS });
    const small = Buffer.alloc(512, 7);
    const manifests = await runLoad(2000, CACHE_CONCURRENCY, (i) => client.post('/v1/s3/objects', { tenant: 'bench', bucket: 'load-local-small', key: `m-${i}`, body_base64: Buffer.concat([small, Buffer.from(String(i))]).toString('base64'), mode: 'enforce' }), end - 2000);
    const commitFloor = measureCommitFloor(200);
    if (manifests.errors > 0) failures.push(`${manifests.errors} small puts failed`);

    const ingestRate = round(ingestMiBps, 1);
    const rehydrateP95 = summarize(rehydrate.latencies).p95;
    const staticP95 = summarize(staticReads.latencies).p95;
    const gatewayP95 = summarize(gateway.latencies).p95;
    const hopP95 = summarize(hop.latencies).p95;
    const cacheWriteRate = writes.latencies.length / writes.seconds;
    const cacheLookupRate = lookups.latencies.length / lookups.seconds;
    const floorRate = cacheFloor.latencies.length / cacheFloor.seconds;
    const manifestRate = manifests.latencies.length / manifests.seconds;
    const commitsPerSecond = 1000 / Math.max(commitFloor.p50, 1e-3);
    const results = {
      exact: mismatches === 0 && rehydrate.errors === 0,
      failures,
      object_ingest: { objects: stored, bytes: ingestedBytes, mib_per_s: ingestRate, sha256_floor_mib_per_s: round(shaMiBps, 1), fraction_of_sha256_floor: round(ingestMiBps / shaMiBps), transport_floor_mib_per_s: round(transportMiBps, 1), fraction_of_transport_floor: round(ingestMiBps / transportMiBps) },
      rehydration: { reads: rehydrate.latencies.length, p50_ms: round(summarize(rehydrate.latencies).p50), p95_ms: round(rehydrateP95), bare_http_p95_ms: round(staticP95), ratio_to_bare_http: round(rehydrateP95 / Math.max(staticP95, 1e-3), 2) },
      ai_gateway: { requests: gateway.latencies.length, p50_ms: round(summarize(gateway.latencies).p50), p95_ms: round(gatewayP95), bare_proxy_p95_ms: round(hopP95), added_p95_ms: round(gatewayP95 - hopP95), ratio_to_bare_proxy: round(gatewayP95 / Math.max(hopP95, 1e-3), 2) },
      exact_cache: { writes: writes.latencies.length, writes_per_s: round(cacheWriteRate, 0), lookups: lookups.latencies.length, lookups_per_s: round(cacheLookupRate, 0), bare_http_per_s: round(floorRate, 0), write_fraction_of_bare_http: round(cacheWriteRate / floorRate), lookup_fraction_of_bare_http: round(cacheLookupRate / floorRate) },
      manifest_store: { manifests: manifests.latencies.length, writes_per_s: round(manifestRate, 0), durable_commit_floor_per_s: round(commitsPerSecond, 0), ratio_to_commit_floor: round(manifestRate / commitsPerSecond, 2) },
    };
    return {
      suite: 'load-local-v1',
      results,
      table: {
        columns: ['figure', 'svc', 'anchor (same run)', 'ratio'],
        rows: [
          ['object ingest (1 MiB objects, 4 in flight)', `${ingestRate} MiB/s`, `SHA-256 ${round(shaMiBps, 1)} MiB/s · bare HTTP ${round(transportMiBps, 1)} MiB/s`, `${results.object_ingest.fraction_of_sha256_floor} · ${results.object_ingest.fraction_of_transport_floor}`],
          ['rehydration p95 (1 MiB)', `${round(rehydrateP95)} ms`, `bare HTTP ${round(staticP95)} ms`, `${results.rehydration.ratio_to_bare_http}×`],
          ['AI gateway p95 (sequential, miss)', `${round(gatewayP95)} ms`, `bare proxy ${round(hopP95)} ms`, `+${results.ai_gateway.added_p95_ms} ms (${results.ai_gateway.ratio_to_bare_proxy}×)`],
          ['exact cache index writes', `${round(cacheWriteRate, 0)}/s`, `bare HTTP ${round(floorRate, 0)}/s`, `${results.exact_cache.write_fraction_of_bare_http}`],
          ['exact cache lookups', `${round(cacheLookupRate, 0)}/s`, `bare HTTP ${round(floorRate, 0)}/s`, `${results.exact_cache.lookup_fraction_of_bare_http}`],
          ['manifest store writes (512 B puts, 8 in flight)', `${round(manifestRate, 0)}/s`, `durable commits ${round(commitsPerSecond, 0)}/s`, `${results.manifest_store.ratio_to_commit_floor}×`],
          ['rehydration exact', results.exact ? 'yes' : 'NO', '', ''],
        ],
      },
      notes: [
        'Scratch svc (SQLite + local chunk directory in a temporary state dir) on this build, over real HTTP on loopback; the mock upstream runs in its own process (tools/mock-openai-upstream).',
        'Anchors are measured in this run by the same client: compare ratios across machines, not absolute figures.',
        'Rates: svc over anchor (1.0 = as fast as the anchor). Latencies: svc over anchor (1.0 = no added latency).',
        ...(failures.length > 0 ? [`FAILURES: ${failures.join('; ')}`] : []),
      ],
    };
  } finally {
    client.close();
    floor.close();
    viaBare.close();
    await bare.close();
    await staticHttp.close();
    await svc.close();
  }
}

export const loadLocalV1: ProductSuite = { ...SUITE_INFO['load-local-v1'], run };
