/**
 * The memory soak (issue 12, "Memory under load"): a fresh `svc serve`
 * process (as users run it, SQLite + chunk directory in a temporary state
 * dir, the mock upstream from tools/mock-openai-upstream as its provider)
 * takes a mixed load from C clients while its resident memory is sampled
 * from /proc (heap and external memory, and the bytes its verified-chunk cache
 * holds, from its own /metrics):
 *
 * | share | operation                                                     | HTTP requests |
 * |-------|---------------------------------------------------------------|---------------|
 * | 35 %  | small JSON put, 0.2–3 KiB (`POST /v1/s3/objects`)             | 1 |
 * | 10 %  | raw put, 16 KiB–1 MiB slices of 8 seeded blobs (`PUT`)        | 1 |
 * |  5 %  | multipart upload: create, 2 raw parts of 64 KiB+, complete    | 4 |
 * | 15 %  | rehydrate an acknowledged object, whole (`POST .../get`) or a range, checked | 1 |
 * | 10 %  | exact cache store, then lookups                               | 1 |
 * | 10 %  | semantic cache store / lookup                                 | 1 |
 * | 15 %  | chat completion (mock-small; a third repeat a prompt)          | 1 |
 *
 * Pass: every request answered as expected, peak RSS after warm-up (the
 * first fifth of the requests) at most `maxRssMb`, and RSS flat after it:
 * the mean of the last fifth of samples exceeds the mean of the second
 * fifth by at most `maxGrowthMb`, once what the verified-chunk cache grew
 * between those fifths is set aside. That cache is bounded by
 * `storage.chunk_cache_bytes` (64 MiB) and under this mix takes ~85,000
 * requests to fill (decision 193): its filling is warm-up, not a leak. Both
 * growths are reported; the peak check counts the cache.
 *
 * The server runs with the node flags of `npm start` (package.json), so the
 * soak measures what users run.
 *
 * `npm run soak -- memory [--requests 100000] [--clients 16] [--mix op=share,…] [--node-flags="…"]`
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { startMockUpstreamProcess } from '../src/svc/benchmarks/scratch-deployment.ts';
import { mulberry32 } from '../test/helpers/prng.ts';
import { freePort } from '../test/helpers/svc-process.ts';

const SVC_BIN = fileURLToPath(new URL('../bin/svc.mjs', import.meta.url));

/** The node flags `npm start` gives the server (package.json), so that the soak measures what users run. */
export function npmStartNodeFlags(): string[] {
  const pkg = JSON.parse(readFileSync(fileURLToPath(new URL('../package.json', import.meta.url)), 'utf8')) as { scripts: { start: string } };
  const words = pkg.scripts.start.split(/\s+/);
  return words.slice(words.indexOf('node') + 1, words.indexOf('bin/svc.mjs')).filter((w) => w.startsWith('--'));
}

export interface MemorySoakOptions {
  requests: number;
  clients: number;
  /** Milliseconds between memory samples. */
  sampleMs?: number;
  maxRssMb?: number;
  maxGrowthMb?: number;
  seed?: number;
  /** Shares by operation (default {@link DEFAULT_MIX}); e.g. `{ put_small: 1 }` for puts only. */
  mix?: Partial<Record<Op, number>>;
  /** Node flags of the svc process; default: those of `npm start`. */
  nodeFlags?: string[];
  /** Extra environment for the svc process (e.g. MALLOC_ARENA_MAX). */
  env?: Record<string, string>;
  log?: (line: string) => void;
}

export interface MemorySample {
  t_s: number;
  requests: number;
  rss_mb: number;
  heap_used_mb: number;
  heap_total_mb: number;
  external_mb: number;
  /** Raw bytes the verified-chunk cache holds (svc_chunk_cache_bytes): bounded, so RSS that grows with it is the cache filling. */
  chunk_cache_mb: number;
}

export interface MemorySoakResult {
  node_flags: string[];
  requests: number;
  clients: number;
  operations: Record<string, number>;
  failures: number;
  first_failures: string[];
  duration_s: number;
  requests_per_s: number;
  rss_start_mb: number;
  rss_peak_after_warm_up_mb: number;
  rss_second_fifth_mean_mb: number;
  /** How much more the verified-chunk cache held in the last fifth than in the second (bounded warm-up, set aside by the growth check). */
  chunk_cache_growth_mb: number;
  rss_last_fifth_mean_mb: number;
  rss_end_mb: number;
  max_rss_mb: number;
  max_growth_mb: number;
  passed: boolean;
  samples: MemorySample[];
}

export type Op = 'put_small' | 'put_raw' | 'multipart' | 'rehydrate' | 'cache_exact' | 'cache_semantic' | 'chat';
export const OPS: readonly Op[] = ['put_small', 'put_raw', 'multipart', 'rehydrate', 'cache_exact', 'cache_semantic', 'chat'];
const DEFAULT_MIX: Array<[Op, number]> = [
  ['put_small', 35],
  ['put_raw', 10],
  ['multipart', 5],
  ['rehydrate', 15],
  ['cache_exact', 10],
  ['cache_semantic', 10],
  ['chat', 15],
];
const MIN_PART = 64 * 1024;
const BLOBS = 8;
const BLOB_BYTES = 2 * 1024 * 1024;
const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');
const mb = (bytes: number) => Math.round((bytes / (1024 * 1024)) * 10) / 10;

/** Half text, half noise: chunking, dedupe and compression all do work. */
function blob(rand: () => number, n: number): Buffer {
  const b = Buffer.alloc(n);
  for (let k = 0; k < n; k++) b[k] = rand() < 0.5 ? Math.floor(rand() * 256) : 97 + (k % 13);
  return b;
}

async function startSvc(env: Record<string, string>, nodeFlags: string[]): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  // Only PATH (and glibc's malloc tuning, to experiment with) reaches the child: nothing of a live deployment.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => k === 'PATH' || k.startsWith('MALLOC_')));
  const child = spawn(process.execPath, [...nodeFlags, SVC_BIN, 'serve', '--port', String(port)], { env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout!.on('data', (d) => (out = (out + d).slice(-8000)));
  child.stderr!.on('data', (d) => (out = (out + d).slice(-8000)));
  const deadline = Date.now() + 120_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`svc exited during start-up:\n${out}`);
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return { url, child, output: () => out };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`svc not ready within 120 s:\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

function residentMb(pid: number): number | undefined {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Math.round(Number(m[1]) / 102.4) / 10 : undefined;
  } catch {
    return undefined;
  }
}

export async function runMemorySoak(options: MemorySoakOptions): Promise<MemorySoakResult> {
  const log = options.log ?? (() => undefined);
  const maxRssMb = options.maxRssMb ?? 512;
  const maxGrowthMb = options.maxGrowthMb ?? 48;
  const rand = mulberry32(options.seed ?? 112);
  const nodeFlags = options.nodeFlags ?? npmStartNodeFlags();
  const mix: Array<[Op, number]> = options.mix ? OPS.filter((op) => (options.mix![op] ?? 0) > 0).map((op) => [op, options.mix![op]!]) : DEFAULT_MIX;
  const mixTotal = mix.reduce((a, [, share]) => a + share, 0);
  // A mix without puts reads back objects seeded on the way.
  const seedObjects = mix.some(([op]) => op.startsWith('put') || op === 'multipart') ? 1 : 200;
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'svc-memory-soak-'));
  const mock = await startMockUpstreamProcess();
  const key = randomBytes(24).toString('hex');
  const env = {
    SVC_STATE_DIR: stateDir,
    SVC_LOCAL_API_KEY: key,
    SVC_LOG_LEVEL: 'warn',
    SVC_GRPC_ENABLED: 'false',
    SVC_SCHEDULER_TICK_MS: '0',
    SVC_MULTIPART_MIN_PART_BYTES: String(MIN_PART),
    ...options.env,
    SVC_PROVIDERS_JSON: JSON.stringify([
      {
        name: 'mock',
        base_url: mock.url,
        models: [
          { id: 'mock-small', size_class: 'small' },
          { id: 'mock-embed', size_class: 'small', capabilities: ['embeddings'] },
        ],
      },
    ]),
  };
  let svc: Awaited<ReturnType<typeof startSvc>> | undefined;
  const blobs = Array.from({ length: BLOBS }, () => blob(rand, BLOB_BYTES));
  const objects: Array<{ bucket: string; key: string; sha256: string; size: number }> = [];
  const cacheKeys: string[] = [];
  const operations: Record<string, number> = {};
  const failures: string[] = [];
  let failureCount = 0;
  let issued = 0;
  let done = 0;
  const samples: MemorySample[] = [];
  const started = performance.now();

  try {
    svc = await startSvc(env, nodeFlags);
    const { url } = svc;
    const pid = svc.child.pid!;
    const headers = { 'x-api-key': key, 'content-type': 'application/json' };
    const post = (route: string, body: unknown) => fetch(`${url}${route}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const putRaw = (route: string, bytes: Uint8Array) =>
      fetch(`${url}${route}`, { method: 'PUT', headers: { 'x-api-key': key, 'content-type': 'application/octet-stream', 'x-svc-content-sha256': sha256(bytes) }, body: bytes });
    const expect = async (what: string, res: Response, status: number): Promise<unknown> => {
      const text = await res.text();
      if (res.status !== status) throw new Error(`${what}: ${res.status} ${text.slice(0, 200)}`);
      return text.startsWith('{') ? JSON.parse(text) : text;
    };
    const slice = (min: number, max: number) => {
      const b = blobs[Math.floor(rand() * BLOBS)]!;
      const len = min + Math.floor(rand() * (max - min));
      const from = Math.floor(rand() * (b.length - len));
      return b.subarray(from, from + len);
    };

    const sample = async () => {
      const rss = residentMb(pid);
      if (rss === undefined) return;
      let heapUsed = -1;
      let heapTotal = -1;
      let external = -1;
      let chunkCache = -1;
      try {
        const text = await (await fetch(`${url}/metrics`, { headers: { 'x-api-key': key } })).text();
        const g = (name: string) => Number(new RegExp(`^\\w*${name} (\\S+)`, 'm').exec(text)?.[1] ?? NaN);
        heapUsed = mb(g('nodejs_heap_size_used_bytes'));
        heapTotal = mb(g('nodejs_heap_size_total_bytes'));
        external = mb(g('nodejs_external_memory_bytes'));
        chunkCache = mb(g('svc_chunk_cache_bytes'));
      } catch {
        // a sample without heap figures
      }
      samples.push({ t_s: Math.round((performance.now() - started) / 100) / 10, requests: done, rss_mb: rss, heap_used_mb: heapUsed, heap_total_mb: heapTotal, external_mb: external, chunk_cache_mb: chunkCache });
    };
    await sample();
    const sampler = setInterval(() => void sample(), options.sampleMs ?? 2000);
    let nextLog = 0;

    const one = async (n: number): Promise<number> => {
      let r = rand() * mixTotal;
      let op: Op = mix[0]![0];
      for (const [name, share] of mix) {
        if ((r -= share) < 0) {
          op = name;
          break;
        }
      }
      if (op === 'rehydrate' && objects.length < seedObjects) {
        // Something to read back, whatever the mix.
        const bytes = blob(rand, 1000 + Math.floor(rand() * 200_000));
        await expect('seed', await putRaw(`/v1/s3/objects?bucket=soak&key=seed/${n}`, bytes), 201);
        objects.push({ bucket: 'soak', key: `seed/${n}`, sha256: sha256(bytes), size: bytes.length });
        return 1;
      }
      operations[op] = (operations[op] ?? 0) + 1;
      switch (op) {
        case 'put_small': {
          const bytes = blob(rand, 200 + Math.floor(rand() * 2900));
          const k = `small/${n}`;
          await expect(op, await post('/v1/s3/objects', { bucket: 'soak', key: k, body_base64: bytes.toString('base64') }), 201);
          objects.push({ bucket: 'soak', key: k, sha256: sha256(bytes), size: bytes.length });
          return 1;
        }
        case 'put_raw': {
          const bytes = slice(16 * 1024, 1024 * 1024);
          const k = `raw/${n}`;
          await expect(op, await putRaw(`/v1/s3/objects?bucket=soak&key=${encodeURIComponent(k)}`, bytes), 201);
          objects.push({ bucket: 'soak', key: k, sha256: sha256(bytes), size: bytes.length });
          return 1;
        }
        case 'multipart': {
          const k = `multipart/${n}`;
          const parts = [slice(MIN_PART, 2 * MIN_PART), slice(1024, MIN_PART)];
          const { upload_id } = (await expect(op, await post('/v1/s3/multipart/create', { bucket: 'soak', key: k }), 201)) as { upload_id: string };
          const digests: string[] = [];
          for (const [i, p] of parts.entries()) {
            digests.push(((await expect(op, await putRaw(`/v1/s3/multipart/part?upload_id=${upload_id}&part_number=${i + 1}`, p), 200)) as { sha256: string }).sha256);
          }
          await expect(op, await post('/v1/s3/multipart/complete', { upload_id, parts: digests.map((sha, i) => ({ part_number: i + 1, sha256: sha })) }), 200);
          const whole = Buffer.concat(parts);
          objects.push({ bucket: 'soak', key: k, sha256: sha256(whole), size: whole.length });
          return 4;
        }
        case 'rehydrate': {
          const o = objects[Math.floor(rand() * objects.length)]!;
          if (rand() < 0.7 || o.size < 2) {
            const res = await post('/v1/s3/objects/get', { bucket: o.bucket, key: o.key });
            if (res.status !== 200) throw new Error(`rehydrate: ${res.status} ${(await res.text()).slice(0, 200)}`);
            const got = new Uint8Array(await res.arrayBuffer());
            if (sha256(got) !== o.sha256) throw new Error(`rehydrate: ${o.key} came back different`);
          } else {
            const start = Math.floor(rand() * (o.size - 1));
            const end = Math.min(o.size - 1, start + 65_535);
            const res = await post('/v1/s3/objects/range', { bucket: o.bucket, key: o.key, range: { start, end } });
            if (res.status !== 206) throw new Error(`range: ${res.status} ${(await res.text()).slice(0, 200)}`);
            if ((await res.arrayBuffer()).byteLength !== end - start + 1) throw new Error(`range: ${o.key} ${start}-${end} came back short`);
          }
          return 1;
        }
        case 'cache_exact': {
          if (cacheKeys.length > 0 && rand() < 0.6) {
            const k = cacheKeys[Math.floor(rand() * cacheKeys.length)]!;
            await expect(op, await post('/v1/cache/exact/lookup', { tenant: 'soak', key: k }), 200);
          } else {
            const k = `ck_${sha256(Buffer.from(`soak ${n}`))}`;
            await expect(op, await post('/v1/cache/store', { tenant: 'soak', key: k, value: { text: `answer ${n} `.repeat(1 + (n % 40)) }, verification: { type: 'non_empty_text' } }), 200);
            cacheKeys.push(k);
          }
          return 1;
        }
        case 'cache_semantic': {
          const topic = Math.floor(rand() * 500);
          const query = `How do I configure widget ${topic} for region ${topic % 17}?`;
          const base = { domain: 'support', query, source_fingerprints: [`doc:${topic % 50}@v1`], policy_id: 'pb_soak' };
          if (rand() < 0.4) {
            await expect(op, await post('/v1/cache/semantic/store', { tenant: 'soak', ...base, value: { text: `Set option ${topic}.` }, verification: { type: 'non_empty_text' } }), 200);
          } else {
            await expect(op, await post('/v1/cache/semantic/lookup', { tenant: 'soak', ...base, freshness: { max_age_seconds: 3600 } }), 200);
          }
          return 1;
        }
        case 'chat': {
          const prompt = rand() < 0.33 ? `repeat question ${Math.floor(rand() * 20)}` : `question ${n}: ${'context '.repeat(Math.floor(rand() * 60))}`;
          await expect(op, await post('/v1/chat/completions', { model: 'mock-small', messages: [{ role: 'user', content: prompt }], max_tokens: 32 }), 200);
          return 1;
        }
      }
    };

    await Promise.all(
      Array.from({ length: options.clients }, async () => {
        while (issued < options.requests) {
          const n = issued++;
          try {
            const sent = await one(n);
            done += sent;
            issued += sent - 1; // multipart counts its four HTTP requests
          } catch (err) {
            done++;
            failureCount++;
            if (failures.length < 10) failures.push(String((err as Error).message ?? err));
          }
          if (done >= nextLog) {
            nextLog += Math.max(1000, Math.floor(options.requests / 20));
            const last = samples.at(-1);
            log(`${done} requests, RSS ${last?.rss_mb ?? '?'} MB (heap used ${last?.heap_used_mb ?? '?'} MB, external ${last?.external_mb ?? '?'} MB, chunk cache ${last?.chunk_cache_mb ?? '?'} MB)`);
          }
        }
      }),
    );
    clearInterval(sampler);
    await sample();
  } finally {
    svc?.child.kill('SIGTERM');
    if (svc) await new Promise((r) => (svc!.child.exitCode !== null ? r(undefined) : svc!.child.once('exit', r)));
    mock.child.kill('SIGTERM');
    rmSync(stateDir, { recursive: true, force: true });
  }

  const duration = (performance.now() - started) / 1000;
  const fifth = (k: number) => samples.filter((s) => s.requests >= (k * done) / 5 && s.requests <= ((k + 1) * done) / 5);
  const mean = (xs: MemorySample[]) => (xs.length === 0 ? NaN : Math.round((xs.reduce((a, s) => a + s.rss_mb, 0) / xs.length) * 10) / 10);
  const afterWarmUp = samples.filter((s) => s.requests >= done / 5);
  const peak = Math.max(...afterWarmUp.map((s) => s.rss_mb));
  const second = mean(fifth(1));
  const last = mean(fifth(4));
  const cacheMean = (xs: MemorySample[]) => {
    const known = xs.filter((x) => x.chunk_cache_mb >= 0);
    return known.length === 0 ? 0 : known.reduce((a, x) => a + x.chunk_cache_mb, 0) / known.length;
  };
  const cacheGrowth = Math.round(Math.max(0, cacheMean(fifth(4)) - cacheMean(fifth(1))) * 10) / 10;
  return {
    node_flags: nodeFlags,
    requests: done,
    clients: options.clients,
    operations,
    failures: failureCount,
    first_failures: failures,
    duration_s: Math.round(duration * 10) / 10,
    requests_per_s: Math.round(done / duration),
    rss_start_mb: samples[0]?.rss_mb ?? NaN,
    rss_peak_after_warm_up_mb: peak,
    rss_second_fifth_mean_mb: second,
    rss_last_fifth_mean_mb: last,
    rss_end_mb: samples.at(-1)?.rss_mb ?? NaN,
    max_rss_mb: maxRssMb,
    chunk_cache_growth_mb: cacheGrowth,
    max_growth_mb: maxGrowthMb,
    passed: failureCount === 0 && peak <= maxRssMb && last - second - cacheGrowth <= maxGrowthMb,
    samples,
  };
}

/** A Markdown report: the verdict and RSS over time (one row per ~5 % of the run). */
export function memorySoakMarkdown(r: MemorySoakResult): string {
  const rows: string[] = [];
  const step = Math.max(1, Math.floor(r.samples.length / 20));
  for (let i = 0; i < r.samples.length; i += step) {
    const s = r.samples[i]!;
    rows.push(`| ${s.t_s} | ${s.requests} | ${s.rss_mb} | ${s.heap_used_mb} | ${s.heap_total_mb} | ${s.external_mb} | ${s.chunk_cache_mb} |`);
  }
  const lastSample = r.samples.at(-1);
  if (lastSample && r.samples.length % step !== 1) rows.push(`| ${lastSample.t_s} | ${lastSample.requests} | ${lastSample.rss_mb} | ${lastSample.heap_used_mb} | ${lastSample.heap_total_mb} | ${lastSample.external_mb} | ${lastSample.chunk_cache_mb} |`);
  return [
    `# Memory soak: ${r.requests} requests, ${r.clients} clients — ${r.passed ? 'PASSED' : 'FAILED'}`,
    '',
    `svc serve as \`npm start\` runs it (node ${r.node_flags.join(' ') || 'without flags'}), fresh SQLite + chunk directory, mock upstream for chat.`,
    '',
    `Operations: ${Object.entries(r.operations).map(([k, v]) => `${k} ${v}`).join(', ')}. Failures: ${r.failures}. ${r.duration_s} s (${r.requests_per_s} requests/s).`,
    '',
    `RSS: start ${r.rss_start_mb} MB, peak after warm-up ${r.rss_peak_after_warm_up_mb} MB (limit ${r.max_rss_mb}), mean of the second fifth ${r.rss_second_fifth_mean_mb} MB → last fifth ${r.rss_last_fifth_mean_mb} MB, of which the verified-chunk cache's own growth ${r.chunk_cache_growth_mb} MB (bounded by storage.chunk_cache_bytes; set aside); growth without it ${Math.round((r.rss_last_fifth_mean_mb - r.rss_second_fifth_mean_mb - r.chunk_cache_growth_mb) * 10) / 10} MB (limit ${r.max_growth_mb} MB), end ${r.rss_end_mb} MB.`,
    '',
    '| t (s) | requests | RSS MB | heap used MB | heap total MB | external MB | chunk cache MB |',
    '|---|---|---|---|---|---|---|',
    ...rows,
    '',
  ].join('\n');
}
