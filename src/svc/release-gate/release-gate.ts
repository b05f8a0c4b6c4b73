/**
 * The release gate (spec: Versioning 4; docs/versioning.md). A release does
 * not ship when any of these fail:
 *
 * 1. `exact_restore`       — a fresh ingest of every kind of data restores
 *                            bit-exact (restore tests sampled_exact and critical_full);
 * 2. `policy_tests`        — the policy engine's test suites;
 * 3. `cache_isolation`     — the cache isolation suites, and a live probe: one
 *                            tenant's exact and semantic entries never answer another;
 * 4. `manifest_migration`  — the committed manifest samples of every schema
 *                            version import and rehydrate bit-exact;
 * 5. `conformance`         — the AI conformance self-check and API conformance
 *                            (OpenAPI 3.1 document, the spec's error body);
 * 6. `hot_path_overhead`   — the AI gateway's p95 stays within
 *                            `maxOverheadRatio` × a bare proxy hop to the same
 *                            upstream, both measured in this run on this machine
 *                            (never against a stored time).
 *
 * Conditions 1, 3 (probe), 4, 5 and 6 run against one scratch deployment of
 * this build (src/svc/benchmarks/scratch-deployment.ts).
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { round, summarize } from '../benchmarks/bench-report.ts';
import { startBareProxy } from '../benchmarks/anchors/bare-proxy.ts';
import { corpusFile } from '../benchmarks/corpus/corpus-files.ts';
import { makeRequester, runLoad } from '../benchmarks/http-load.ts';
import { type ScratchDeployment, startScratchDeployment } from '../benchmarks/scratch-deployment.ts';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));

export const GATE_CONDITIONS = ['exact_restore', 'policy_tests', 'cache_isolation', 'manifest_migration', 'conformance', 'hot_path_overhead'] as const;
export type GateConditionId = (typeof GATE_CONDITIONS)[number];

export interface GateOptions {
  /** Run only these conditions (tests break one at a time). Default: all. */
  only?: readonly GateConditionId[];
  /** Where the manifest samples live (`v<N>/export.json` + `expected.json`). */
  samplesDir?: string;
  /** Test files (or directories) of the policy suites, relative to the repository root. */
  policyTests?: readonly string[];
  /** Test files of the cache isolation suites. */
  cacheIsolationTests?: readonly string[];
  /** Largest allowed gateway p95 / bare-hop p95 (default 8). */
  maxOverheadRatio?: number;
  /** Mock upstream behaviour per model (a broken upstream must fail conformance). */
  upstreamBehaviors?: Record<string, string>;
  /** Runs after the exact_restore ingest (tests damage a chunk here). */
  afterIngest?: (deployment: ScratchDeployment, manifestIds: readonly string[]) => Promise<void>;
  progress?: (line: string) => void;
}

export interface GateConditionResult {
  id: GateConditionId;
  passed: boolean;
  summary: string;
  details: Record<string, unknown>;
}

export interface GateReport {
  passed: boolean;
  conditions: GateConditionResult[];
}

export const DEFAULT_POLICY_TESTS = ['src/svc/policy', 'test/policy'] as const;
export const DEFAULT_CACHE_ISOLATION_TESTS = ['src/svc/cache/cross-tenant-guard.test.ts', 'test/api/cache-tenant-scope.e2e.test.ts'] as const;
export const DEFAULT_MAX_OVERHEAD_RATIO = 8;

/** Runs test files with Node's test runner in a child process; passes when it exits 0. */
async function runSuites(paths: readonly string[]): Promise<{ passed: boolean; details: Record<string, unknown> }> {
  const files = paths.flatMap((p) => {
    const abs = path.resolve(ROOT, p);
    if (!existsSync(abs)) return [];
    if (!abs.endsWith('.ts')) return readdirSync(abs, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.test.ts')).map((f) => path.join(abs, f));
    return [abs];
  });
  if (files.length === 0) return { passed: false, details: { reason: `no test files at ${paths.join(', ')}` } };
  // Without NODE_TEST_CONTEXT: when the gate itself runs under the test runner, an inherited one makes the
  // child report to a parent that is not listening instead of running its tests.
  const { NODE_TEST_CONTEXT: _inherited, ...env } = process.env;
  const child = spawn(process.execPath, ['--test', '--test-reporter=tap', ...files], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (b: Buffer) => (out += b.toString('utf8')));
  child.stderr.on('data', () => undefined);
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  const count = (name: string) => Number(new RegExp(`^# ${name} (\\d+)`, 'm').exec(out)?.[1] ?? 0);
  // A run that found no tests proves nothing.
  return { passed: code === 0 && count('tests') > 0, details: { files: files.length, tests: count('tests'), pass: count('pass'), fail: count('fail'), exit_code: code } };
}

function sha256(b: Uint8Array): string {
  return createHash('sha256').update(b).digest('hex');
}

type Client = ReturnType<typeof makeRequester>;

async function exactRestore(d: ScratchDeployment, client: Client, options: GateOptions): Promise<GateConditionResult> {
  const kinds = ['random', 'repeated', 'log-like', 'json', 'compressed', 'encrypted-like'] as const;
  const ids: string[] = [];
  for (const [i, kind] of kinds.entries()) {
    const data = corpusFile(kind, 256 * 1024, `release-gate-${i}`);
    const r = await client.post('/v1/s3/objects', { tenant: 'gate', bucket: i % 2 === 0 ? 'critical' : 'other', key: `${kind}.bin`, body_base64: data.toString('base64') });
    if (r.status !== 201) return { id: 'exact_restore', passed: false, summary: `ingest of ${kind} failed: HTTP ${r.status}`, details: {} };
    ids.push((JSON.parse(r.body) as { manifest_id: string }).manifest_id);
  }
  await options.afterIngest?.(d, ids);
  const results: Record<string, { status: string; checked: number; failures: unknown[] }> = {};
  for (const body of [{ kind: 'sampled_exact', tenant: 'gate', sample_size: 1000 }, { kind: 'critical_full', tenant: 'gate', prefixes: ['s3://critical/'] }]) {
    const r = await client.post('/v1/admin/restore-tests', body);
    results[body.kind] = r.status === 200 ? (JSON.parse(r.body) as { result: { status: string; checked: number; failures: unknown[] } }).result : { status: `HTTP ${r.status}`, checked: 0, failures: [] };
  }
  const passed = Object.values(results).every((r) => r.status === 'passed');
  return { id: 'exact_restore', passed, summary: Object.entries(results).map(([k, r]) => `${k} ${r.status} (${r.checked} checked)`).join(', '), details: results };
}

async function cacheIsolation(client: Client, options: GateOptions): Promise<GateConditionResult> {
  const suites = await runSuites(options.cacheIsolationTests ?? DEFAULT_CACHE_ISOLATION_TESTS);
  // Live probe on the scratch deployment: acme stores, globex looks up the same key and query in its own namespace.
  const key = `ck_${sha256(Buffer.from('release-gate isolation probe'))}`;
  const semantic = { domain: 'gate', query: 'what is the refund window', source_fingerprints: ['doc:gate'], policy_id: 'gate' };
  await client.post('/v1/cache/store', { tenant: 'acme', key, value: { text: 'thirty days' }, verification: { type: 'non_empty_text' } });
  await client.post('/v1/cache/semantic/store', { tenant: 'acme', ...semantic, value: { text: 'thirty days' }, verification: { type: 'non_empty_text' } });
  const exact = JSON.parse((await client.post('/v1/cache/exact/lookup', { tenant: 'globex', key })).body) as { hit?: boolean };
  const sem = JSON.parse((await client.post('/v1/cache/semantic/lookup', { tenant: 'globex', ...semantic, freshness: { max_age_seconds: 3600 } })).body) as { hit?: boolean };
  const own = JSON.parse((await client.post('/v1/cache/exact/lookup', { tenant: 'acme', key })).body) as { hit?: boolean };
  const probe = { cross_tenant_exact_hit: exact.hit === true, cross_tenant_semantic_hit: sem.hit === true, own_tenant_hit: own.hit === true };
  const passed = suites.passed && !probe.cross_tenant_exact_hit && !probe.cross_tenant_semantic_hit && probe.own_tenant_hit;
  return { id: 'cache_isolation', passed, summary: `suites ${suites.passed ? 'passed' : 'FAILED'} (${String(suites.details['pass'])}/${String(suites.details['tests'])}); probe: cross-tenant hits ${Number(probe.cross_tenant_exact_hit) + Number(probe.cross_tenant_semantic_hit)}`, details: { suites: suites.details, probe } };
}

async function manifestMigration(client: Client, options: GateOptions): Promise<GateConditionResult> {
  const dir = options.samplesDir ?? path.join(ROOT, 'test/fixtures/manifests');
  const versions = existsSync(dir) ? readdirSync(dir).filter((v) => /^v\d+$/.test(v)).sort() : [];
  if (versions.length === 0) return { id: 'manifest_migration', passed: false, summary: `no manifest samples in ${dir}`, details: {} };
  const details: Record<string, unknown> = {};
  let passed = true;
  for (const v of versions) {
    const doc = JSON.parse(readFileSync(path.join(dir, v, 'export.json'), 'utf8')) as unknown;
    const expected = JSON.parse(readFileSync(path.join(dir, v, 'expected.json'), 'utf8')) as Record<string, { sha256: string; bytes: number }>;
    const imported = await client.post('/v1/manifests/import', doc);
    if (imported.status !== 200 && imported.status !== 201) {
      passed = false;
      details[v] = { imported: false, status: imported.status, error: (JSON.parse(imported.body) as { error?: { message?: string } }).error?.message ?? null };
      continue;
    }
    let exact = 0;
    const mismatched: string[] = [];
    for (const [id, e] of Object.entries(expected)) {
      const r = await client.send('POST', `/v1/manifests/${id}/rehydrate`, {});
      if (r.status === 200 && r.body.byteLength === e.bytes && sha256(r.body) === e.sha256) exact++;
      else mismatched.push(id);
    }
    if (mismatched.length > 0) passed = false;
    details[v] = { imported: true, manifests: Object.keys(expected).length, bit_exact: exact, mismatched };
  }
  return { id: 'manifest_migration', passed, summary: versions.map((v) => `${v}: ${JSON.stringify(details[v])}`).join('; '), details };
}

const ERROR_CODE = /^[a-z_]+$/;
function isErrorBody(text: string): boolean {
  try {
    const e = (JSON.parse(text) as { error?: Record<string, unknown> }).error;
    return !!e && ERROR_CODE.test(String(e['code'])) && typeof e['message'] === 'string' && typeof e['retryable'] === 'boolean' && 'work_unit_id' in e && 'policy_bundle_id' in e;
  } catch {
    return false;
  }
}

async function conformance(client: Client, d: ScratchDeployment): Promise<GateConditionResult> {
  const ai = JSON.parse((await client.send('GET', '/v1/conformance/ai')).body.toString('utf8')) as { passed?: number; failed?: number; checks?: Array<{ feature: string; supported: boolean }> };
  const openapi = JSON.parse((await client.send('GET', '/openapi.json')).body.toString('utf8')) as { openapi?: string; paths?: Record<string, Record<string, { responses?: unknown }>> };
  const operations = Object.values(openapi.paths ?? {}).flatMap((p) => Object.values(p));
  const anonymous = makeRequester({ name: 'anonymous', url: d.url, headers: {} });
  const errors = {
    bad_body_400: await client.post('/v1/work-units', { nope: true }),
    unknown_route_404: await client.post('/v1/no-such-route', {}),
    no_credential_401: await anonymous.post('/v1/work-units', {}),
  };
  anonymous.close();
  const errorBodies = Object.fromEntries(Object.entries(errors).map(([k, r]) => [k, { status: r.status, spec_error_body: isErrorBody(r.body) }]));
  const api = { openapi: openapi.openapi ?? null, operations: operations.length, every_operation_has_responses: operations.every((o) => o.responses !== undefined), error_bodies: errorBodies };
  const apiPassed = /^3\.1\./.test(api.openapi ?? '') && api.operations > 0 && api.every_operation_has_responses && Object.values(errorBodies).every((e) => e.spec_error_body) && errors.bad_body_400.status === 400 && errors.unknown_route_404.status === 404 && errors.no_credential_401.status === 401;
  const aiPassed = (ai.failed ?? 1) === 0 && (ai.passed ?? 0) > 0;
  const failedChecks = (ai.checks ?? []).filter((c) => !c.supported).map((c) => c.feature);
  return {
    id: 'conformance',
    passed: aiPassed && apiPassed,
    summary: `AI ${ai.passed ?? 0} passed / ${ai.failed ?? '?'} failed${failedChecks.length ? ` (${failedChecks.join(', ')})` : ''}; API ${apiPassed ? 'conformant' : 'NOT conformant'} (${api.operations} operations)`,
    details: { ai, api },
  };
}

async function hotPathOverhead(client: Client, d: ScratchDeployment, options: GateOptions): Promise<GateConditionResult> {
  const bare = await startBareProxy(d.upstreamUrl);
  const hop = makeRequester({ name: 'bare', url: bare.url, headers: {} });
  try {
    const chat = (i: number, who: string) => ({ model: 'mock-small', messages: [{ role: 'user', content: `release gate ${who} ${i}` }], max_tokens: 16 });
    for (let i = 0; i < 30; i++) {
      await client.post('/v1/chat/completions', chat(i, 'warm'));
      await hop.post('/chat/completions', chat(i, 'warm'));
    }
    // Interleaved rounds so machine noise lands on both paths alike.
    const svcMs: number[] = [];
    const hopMs: number[] = [];
    for (let round = 0; round < 4; round++) {
      svcMs.push(...(await runLoad(60, 1, (i) => client.post('/v1/chat/completions', chat(round * 1000 + i, 'svc')))).latencies);
      hopMs.push(...(await runLoad(60, 1, (i) => hop.post('/chat/completions', chat(round * 1000 + i, 'hop')))).latencies);
    }
    const p95 = summarize(svcMs).p95;
    const baseline = summarize(hopMs).p95;
    const ratio = p95 / Math.max(baseline, 1e-3);
    const limit = options.maxOverheadRatio ?? DEFAULT_MAX_OVERHEAD_RATIO;
    return {
      id: 'hot_path_overhead',
      passed: svcMs.length === 240 && ratio <= limit,
      summary: `gateway p95 ${round(p95)} ms vs bare hop p95 ${round(baseline)} ms: ${round(ratio, 2)}× (limit ${limit}×)`,
      details: { svc_p95_ms: round(p95), bare_hop_p95_ms: round(baseline), ratio: round(ratio, 2), limit, requests: svcMs.length },
    };
  } finally {
    hop.close();
    await bare.close();
  }
}

export async function runReleaseGate(options: GateOptions = {}): Promise<GateReport> {
  const wanted = new Set(options.only ?? GATE_CONDITIONS);
  const say = options.progress ?? (() => undefined);
  const results: GateConditionResult[] = [];
  if (wanted.has('policy_tests')) {
    say('policy_tests');
    const r = await runSuites(options.policyTests ?? DEFAULT_POLICY_TESTS);
    results.push({ id: 'policy_tests', passed: r.passed, summary: `${String(r.details['pass'] ?? 0)}/${String(r.details['tests'] ?? 0)} passed${r.details['reason'] ? ` (${String(r.details['reason'])})` : ''}`, details: r.details });
  }
  const live = GATE_CONDITIONS.filter((c) => c !== 'policy_tests' && wanted.has(c));
  if (live.length > 0) {
    const d = await startScratchDeployment({ ...(options.upstreamBehaviors ? { upstreamBehaviors: options.upstreamBehaviors } : {}) });
    const client = makeRequester({ name: 'gate', url: d.url, headers: { 'x-api-key': d.adminKey } });
    try {
      for (const id of live) {
        say(id);
        if (id === 'exact_restore') results.push(await exactRestore(d, client, options));
        else if (id === 'cache_isolation') results.push(await cacheIsolation(client, options));
        else if (id === 'manifest_migration') results.push(await manifestMigration(client, options));
        else if (id === 'conformance') results.push(await conformance(client, d));
        else if (id === 'hot_path_overhead') results.push(await hotPathOverhead(client, d, options));
      }
    } finally {
      client.close();
      await d.close();
    }
  }
  results.sort((a, b) => GATE_CONDITIONS.indexOf(a.id) - GATE_CONDITIONS.indexOf(b.id));
  return { passed: results.length === wanted.size && results.every((r) => r.passed), conditions: results };
}
