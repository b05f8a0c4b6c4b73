/**
 * gateway-overhead: latency svc adds in front of an OpenAI-compatible
 * upstream. The same chat requests go direct to the mock upstream and
 * through svc (SQLite store; work unit, plan, compute manifest and ledger
 * events written for every request), keep-alive, sequentially and at 64 in
 * flight. Reported: p50/p95 of each path and the difference (added
 * latency); cache-hit latency through svc; svc's CPU time per request;
 * Portkey in the same run when it can be installed; two floors measured in
 * the same run — a bare Node proxy hop and one durable SQLite commit.
 * Goals (issue 11 §3, ratios inside one run): svc's added p50 minus the
 * commit floor ≤ Portkey's added p50; svc CPU per request at 64 in flight
 * ≤ 2 × the bare proxy's. Paths run in interleaved rounds, so drifting load
 * on a shared machine does not favour one of them.
 * Older absolute targets: added p50 ≤ 0.3 ms, added p95 ≤ 1 ms, cache hit p95 ≤ 1 ms.
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
/** Interleaved rounds per phase (every path once per round). */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const FLOOR_COMMITS = 300;

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
      return { ...r, cpuUs: cpu.user + cpu.system, count: j.count };
    };
    const accumulate = (into: Pooled, r: Awaited<ReturnType<typeof measured>>) => {
      into.latencies.push(...r.latencies);
      into.errors += r.errors;
      into.seconds += r.seconds;
      into.cpuUs += r.cpuUs;
      into.count += r.count;
    };
    // Machines here are shared: load drifts within a run. Every path runs in ROUNDS interleaved rounds
    // (and the commit floor is measured in each sequential round), so no path is measured only in a
    // quiet or only in a busy stretch; latencies and CPU time are pooled over the rounds.
    type Pooled = { latencies: number[]; errors: number; seconds: number; cpuUs: number; count: number };
    const pool = (): Record<string, Pooled> => Object.fromEntries(paths.map(([name]) => [name, { latencies: [], errors: 0, seconds: 0, cpuUs: 0, count: 0 }]));
    const seqPool = pool();
    const concPool = pool();
    const floorSamples: number[][] = [];
    for (const [, target, unique] of paths) await load.run(job(target, unique, WARMUP, 1));
    for (let round_ = 0; round_ < ROUNDS; round_++) {
      floorSamples.push(measureCommitFloor(Math.ceil(FLOOR_COMMITS / ROUNDS)).samples);
      for (const [name, target, unique] of paths) {
        const r = await measured(job(target, unique, Math.ceil(SEQUENTIAL / ROUNDS), 1));
        accumulate(seqPool[name]!, r);
      }
    }
    for (const [, target, unique] of paths) await load.run(job(target, unique, WARMUP, CONCURRENCY));
    for (let round_ = 0; round_ < ROUNDS; round_++) {
      for (const [name, target, unique] of paths) {
        const r = await measured(job(target, unique, Math.ceil(CONCURRENT_TOTAL / ROUNDS), CONCURRENCY));
        accumulate(concPool[name]!, r);
      }
    }
    const seq: Record<string, ReturnType<typeof summarize> & { errors: number; svc_cpu_us_per_request: number }> = {};
    const conc: Record<string, ReturnType<typeof summarize> & { errors: number; rps: number; svc_cpu_us_per_request: number }> = {};
    for (const [name] of paths) {
      const s = seqPool[name]!;
      const c = concPool[name]!;
      seq[name] = { ...summarize(s.latencies), errors: s.errors, svc_cpu_us_per_request: round(s.cpuUs / s.count, 1) };
      conc[name] = { ...summarize(c.latencies), errors: c.errors, rps: round(c.latencies.length / c.seconds, 0), svc_cpu_us_per_request: round(c.cpuUs / c.count, 1) };
    }
    const floor = summarize(floorSamples.flat());
    const floorRounds = floorSamples.map((x) => round(summarize(x).p50, 3));
    const results_portkeyAdded = (table: Record<string, { p50: number }>) => (table.portkey ? round(table.portkey.p50 - table.direct!.p50, 3) : null);
    const added = (table: Record<string, { p50: number; p95: number }>, name: string) => ({ p50: round(table[name]!.p50 - table.direct!.p50, 3), p95: round(table[name]!.p95 - table.direct!.p95, 3) });
    const addedSeq = added(seq, 'svc_miss');
    const addedConc = added(conc, 'svc_miss');
    const results = {
      sequential: seq,
      concurrent_64: conc,
      added_ms: { sequential: addedSeq, concurrent_64: addedConc, bare_proxy_sequential: added(seq, 'bare_proxy'), bare_proxy_concurrent_64: added(conc, 'bare_proxy'), ...(viaPortkey ? { portkey_sequential: added(seq, 'portkey'), portkey_concurrent_64: added(conc, 'portkey') } : {}) },
      durable_commit_floor_ms: { p50: round(floor.p50, 3), p95: round(floor.p95, 3), p50_per_round: floorRounds },
      cache_hit_p95_ms: { sequential: round(seq.svc_hit!.p95, 3), concurrent_64: round(conc.svc_hit!.p95, 3) },
      // Issue 11 §3: ratios inside one run.
      goals: {
        added_p50_minus_commit_floor_ms: round(addedSeq.p50 - floor.p50, 3),
        portkey_added_p50_ms: viaPortkey ? results_portkeyAdded(seq) : null,
        added_minus_floor_le_portkey: viaPortkey ? addedSeq.p50 - floor.p50 <= results_portkeyAdded(seq)! : null,
        cpu_ratio_to_bare_proxy_64: round(conc.svc_miss!.svc_cpu_us_per_request / conc.bare_proxy!.svc_cpu_us_per_request, 2),
        cpu_le_2x_bare_proxy: conc.svc_miss!.svc_cpu_us_per_request <= 2 * conc.bare_proxy!.svc_cpu_us_per_request,
      },
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
      // The bare proxy runs in this process too: its CPU per request is the anchor of svc's.
      const cpu = name.startsWith('svc') || name === 'bare_proxy' ? round(c.svc_cpu_us_per_request, 0) : '-';
      return [label, round(s.p50), round(s.p95), round(c.p50), round(c.p95), c.rps, cpu];
    };
    return {
      suite: 'gateway-overhead',
      results,
      table: {
        columns: ['path', 'seq p50 ms', 'seq p95 ms', '64× p50 ms', '64× p95 ms', '64× req/s', 'CPU µs/req in the svc process (64×)'],
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
        `Sequential: ${SEQUENTIAL} requests per path, concurrent: ${CONCURRENT_TOTAL} requests with ${CONCURRENCY} in flight, each in ${ROUNDS} interleaved rounds (every path once per round) after ${WARMUP} warm-up requests per path; latencies and CPU pooled over the rounds.`,
        'svc runs alone in the benchmark process; the mock upstream, the load generator and Portkey each run in their own child process (2 cores shared with other work, so absolute figures are noisy). Added latency is the difference of percentiles measured in the same run.',
        'The bare Node proxy (src/svc/benchmarks/anchors/bare-proxy.ts) forwards bytes over a keep-alive undici pool and does nothing else: the floor for any Node gateway here. It runs in the svc process (idle while it is measured), so its CPU per request is measured the same way as svc\'s.',
        `Durable-commit floor on this disk (one SQLite WAL synchronous=FULL transaction of 6 rows, src/svc/benchmarks/anchors/commit-floor.ts), measured at the start of every sequential round: p50 ${round(floor.p50)} ms (per round ${floorRounds.join(' / ')}), p95 ${round(floor.p95)} ms.`,
        'svc commits each request\'s records (work unit, plan, compute manifest, two ledger events, cache entry; SQLite WAL, synchronous=FULL) in one group commit shared by concurrent requests, before answering (docs/decisions/067, 137); sequentially every request waits for one fsync, and a request that commits (nearly) alone writes work unit, plan and manifest as one journal row, moved into their tables in batches off the request path (docs/decisions/141).',
        'CPU µs/req: user+system CPU time of the svc process divided by the requests of the run (the load generator and mock are in other processes).',
        `Goals (issue 11 §3): svc added p50 minus the commit floor ${round(addedSeq.p50 - floor.p50)} ms vs Portkey added p50 ${viaPortkey ? results_portkeyAdded(seq) : 'n/a'} ms: ${viaPortkey ? (addedSeq.p50 - floor.p50 <= results_portkeyAdded(seq)! ? 'met' : 'NOT met') : 'n/a'}; svc CPU per request at 64 in flight ${round(conc.svc_miss!.svc_cpu_us_per_request / conc.bare_proxy!.svc_cpu_us_per_request, 2)}x the bare proxy's (goal <= 2x): ${conc.svc_miss!.svc_cpu_us_per_request <= 2 * conc.bare_proxy!.svc_cpu_us_per_request ? 'met' : 'NOT met'}.`,
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
