/**
 * gateway-overhead: latency svc adds in front of an OpenAI-compatible
 * upstream. The same chat requests go direct to the mock upstream and
 * through svc (SQLite store; work unit, plan, compute manifest and ledger
 * events written for every request), keep-alive, sequentially and at 64 in
 * flight. Reported: p50/p95 of each path and the difference (added
 * latency); cache-hit latency through svc; svc's CPU time per request;
 * Portkey in the same run when it can be installed; two floors measured in
 * the same run — a bare Node proxy hop and one durable SQLite commit.
 * Targets: added p50 ≤ 0.3 ms, added p95 ≤ 1 ms, cache hit p95 ≤ 1 ms.
 *
 * svc runs alone in this process; the mock upstream and the load
 * generator run in child processes (bench/ai/child-processes.ts).
 */
import { createServer } from 'node:net';
import { ADMIN_KEY, startTestServer } from '../../test/helpers/server.ts';
import { startBareProxy } from '../../src/svc/benchmarks/anchors/bare-proxy.ts';
import { startLoadProcess, startMockProcess } from '../ai/child-processes.ts';
import { measureCommitFloor } from '../../src/svc/benchmarks/anchors/commit-floor.ts';
import type { LoadJob, Target } from '../../src/svc/benchmarks/http-load.ts';
import { startPortkey } from '../ai/portkey.ts';
import { type BenchReport, round, summarize } from '../report.ts';

const SEQUENTIAL = Number(process.env.BENCH_SEQUENTIAL ?? 600);
const CONCURRENT_TOTAL = Number(process.env.BENCH_CONCURRENT ?? 3000);
const CONCURRENCY = 64;
const WARMUP = 200;

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export default async function run(): Promise<BenchReport> {
  // The mock upstream and the load generator run in their own processes: this process runs svc alone.
  const mock = await startMockProcess();
  const load = startLoadProcess();
  const providers = JSON.stringify([{ name: 'mock', base_url: mock.url, models: [{ id: 'mock-small', size_class: 'small' }] }]);
  const svc = await startTestServer({ env: { SVC_PROVIDERS_JSON: providers, SVC_LOG_LEVEL: 'warn' } });
  const bare = await startBareProxy(mock.url);
  const direct: Target = { name: 'direct', url: mock.url, headers: {} };
  const viaBare: Target = { name: 'bare_proxy', url: bare.url, headers: {} };
  const through: Target = { name: 'svc', url: `${svc.url}/v1`, headers: { 'x-api-key': ADMIN_KEY } };
  const portkey = process.env.BENCH_SKIP_PORTKEY ? undefined : await startPortkey(await freePort());
  const viaPortkey: Target | undefined = portkey
    ? { name: 'portkey', url: portkey.url, headers: { 'x-portkey-provider': 'openai', 'x-portkey-custom-host': mock.url, authorization: 'Bearer sk-mock' } }
    : undefined;

  try {
    // Unique bodies never repeat across runs (offset), so every svc_miss request is a real miss.
    let offset = 0;
    const job = (target: Target, unique: boolean, count: number, concurrency: number): LoadJob => {
      offset += 1_000_000;
      return { target, path: '/chat/completions', count, concurrency, body: { model: 'mock-small', prefix: unique ? 'overhead probe' : 'overhead probe (repeated)', unique, offset } };
    };
    const paths: Array<[string, Target, boolean]> = [
      ['direct', direct, true],
      ['bare_proxy', viaBare, true],
      ['svc_miss', through, true],
      ['svc_hit', through, false],
    ];
    if (viaPortkey) paths.push(['portkey', viaPortkey, true]);

    // CPU time of this process (svc alone) per request: far less sensitive to other load on the machine than latency.
    const measured = async (j: LoadJob) => {
      const cpu0 = process.cpuUsage();
      const r = await load.run(j);
      const cpu = process.cpuUsage(cpu0);
      return { ...r, svcCpuUsPerRequest: round((cpu.user + cpu.system) / j.count, 1) };
    };
    const seq: Record<string, ReturnType<typeof summarize> & { errors: number; svc_cpu_us_per_request: number }> = {};
    const conc: Record<string, ReturnType<typeof summarize> & { errors: number; rps: number; svc_cpu_us_per_request: number }> = {};
    const floorBefore = measureCommitFloor();
    for (const [name, target, unique] of paths) {
      await load.run(job(target, unique, WARMUP, 1));
      const s = await measured(job(target, unique, SEQUENTIAL, 1));
      seq[name] = { ...summarize(s.latencies), errors: s.errors, svc_cpu_us_per_request: s.svcCpuUsPerRequest };
    }
    const floorAfter = measureCommitFloor();
    for (const [name, target, unique] of paths) {
      await load.run(job(target, unique, WARMUP, CONCURRENCY));
      const c = await measured(job(target, unique, CONCURRENT_TOTAL, CONCURRENCY));
      conc[name] = { ...summarize(c.latencies), errors: c.errors, rps: round(c.latencies.length / c.seconds, 0), svc_cpu_us_per_request: c.svcCpuUsPerRequest };
    }
    const added = (table: Record<string, { p50: number; p95: number }>, name: string) => ({ p50: round(table[name]!.p50 - table.direct!.p50, 3), p95: round(table[name]!.p95 - table.direct!.p95, 3) });
    const addedSeq = added(seq, 'svc_miss');
    const addedConc = added(conc, 'svc_miss');
    const results = {
      sequential: seq,
      concurrent_64: conc,
      added_ms: { sequential: addedSeq, concurrent_64: addedConc, bare_proxy_sequential: added(seq, 'bare_proxy'), bare_proxy_concurrent_64: added(conc, 'bare_proxy'), ...(viaPortkey ? { portkey_sequential: added(seq, 'portkey'), portkey_concurrent_64: added(conc, 'portkey') } : {}) },
      durable_commit_floor_ms: { before_sequential: { p50: round(floorBefore.p50, 3), p95: round(floorBefore.p95, 3) }, after_sequential: { p50: round(floorAfter.p50, 3), p95: round(floorAfter.p95, 3) } },
      cache_hit_p95_ms: { sequential: round(seq.svc_hit!.p95, 3), concurrent_64: round(conc.svc_hit!.p95, 3) },
      targets: {
        added_p50_le_0_3ms: addedSeq.p50 <= 0.3,
        added_p95_le_1ms: addedSeq.p95 <= 1,
        cache_hit_p95_le_1ms: seq.svc_hit!.p95 <= 1,
      },
      portkey: portkey ? { version: portkey.version } : { skipped: 'could not install or start @portkey-ai/gateway here' },
    };
    const row = (label: string, name: string) => {
      const s = seq[name];
      const c = conc[name];
      if (!s || !c) return [label, '-', '-', '-', '-', '-', '-'];
      const cpu = name.startsWith('svc') ? round(c.svc_cpu_us_per_request, 0) : '-';
      return [label, round(s.p50), round(s.p95), round(c.p50), round(c.p95), c.rps, cpu];
    };
    return {
      suite: 'gateway-overhead',
      results,
      table: {
        columns: ['path', 'seq p50 ms', 'seq p95 ms', '64× p50 ms', '64× p95 ms', '64× req/s', 'svc CPU µs/req (64×)'],
        rows: [
          row('direct to mock (baseline)', 'direct'),
          row('bare Node proxy (one hop, no work)', 'bare_proxy'),
          row('through svc, cache miss (manifest + ledger on)', 'svc_miss'),
          row('through svc, exact cache hit', 'svc_hit'),
          ...(viaPortkey ? [row(`through Portkey ${portkey!.version}`, 'portkey')] : []),
          ['added by svc (miss − direct)', addedSeq.p50, addedSeq.p95, addedConc.p50, addedConc.p95, '-', '-'],
          ['added by a bare proxy hop', results.added_ms.bare_proxy_sequential.p50, results.added_ms.bare_proxy_sequential.p95, results.added_ms.bare_proxy_concurrent_64.p50, results.added_ms.bare_proxy_concurrent_64.p95, '-', '-'],
          ...(viaPortkey ? [['added by Portkey', results.added_ms.portkey_sequential!.p50, results.added_ms.portkey_sequential!.p95, results.added_ms.portkey_concurrent_64!.p50, results.added_ms.portkey_concurrent_64!.p95, '-', '-']] : []),
        ],
      },
      notes: [
        `Sequential: ${SEQUENTIAL} requests per path after ${WARMUP} warm-up; concurrent: ${CONCURRENT_TOTAL} requests with ${CONCURRENCY} in flight.`,
        'svc runs alone in the benchmark process; the mock upstream, the load generator and Portkey each run in their own child process (2 cores shared with other work, so absolute figures are noisy). Added latency is the difference of percentiles measured in the same run.',
        'The bare Node proxy (bench/ai/bare-proxy.ts) forwards bytes over a keep-alive pool and does nothing else: the floor for any Node gateway here. It runs in the svc process (idle while it is measured).',
        `Durable-commit floor on this disk (one SQLite WAL synchronous=FULL transaction of 6 rows, bench/ai/commit-floor.ts), measured before / after the sequential runs: p50 ${round(floorBefore.p50)} / ${round(floorAfter.p50)} ms, p95 ${round(floorBefore.p95)} / ${round(floorAfter.p95)} ms.`,
        'svc commits each request\'s records (SQLite WAL, synchronous=FULL: one fsync per commit, shared by concurrent requests) before answering (docs/decisions/067); sequentially every request waits for one fsync.',
        'svc CPU µs/req: user+system CPU time of the svc process divided by the requests of the run (the load generator and mock are in other processes).',
        `Targets (sequential): added p50 ≤ 0.3 ms ${results.targets.added_p50_le_0_3ms ? 'met' : 'NOT met'}; added p95 ≤ 1 ms ${results.targets.added_p95_le_1ms ? 'met' : 'NOT met'}; cache hit p95 ≤ 1 ms ${results.targets.cache_hit_p95_le_1ms ? 'met' : 'NOT met'}.`,
      ],
    };
  } finally {
    load.stop();
    await bare.close();
    portkey?.stop();
    await svc.close();
    mock.stop();
  }
}
