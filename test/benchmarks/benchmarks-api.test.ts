/**
 * Benchmarks as a product feature (issue 17): /v1/benchmarks through the
 * real server and `svc benchmark run` through the real CLI, on SQLite and
 * PostgreSQL. A load-local-v1 run reports every figure the spec lists with
 * its anchor; one run at a time; a run past its budget is killed; a run
 * whose owner died is taken over as interrupted; runs are ledger events.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { makePrincipal } from '../../src/svc/auth/principal.ts';
import { BenchmarkService } from '../../src/svc/benchmarks/benchmark-service.ts';
import type { BenchmarkRun } from '../../src/svc/benchmarks/benchmark-run.ts';
import { runSvc } from '../helpers/cli.ts';
import { engines } from '../helpers/engines.ts';
import { ADMIN_KEY, KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

const HANGING_SUITE = fileURLToPath(new URL('../fixtures/benchmarks/hanging-suite.ts', import.meta.url));

async function waitForEnd(s: TestServer, id: string, timeoutMs = 150_000): Promise<BenchmarkRun> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const run = ((await (await s.call('GET', `/v1/benchmarks/runs/${id}`)).json()) as { run: BenchmarkRun }).run;
    if (run.state !== 'running') return run;
    if (Date.now() > until) throw new Error(`run ${id} still running after ${timeoutMs} ms: ${JSON.stringify(run.progress)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function ledgerEvents(s: TestServer, type: string): Promise<Array<{ payload: Record<string, unknown> }>> {
  const r = await s.call('POST', '/v1/ledger/query', { body: { event_types: [type], limit: 1000 } });
  assert.equal(r.status, 200);
  return ((await r.json()) as { events: Array<{ payload: Record<string, unknown> }> }).events;
}

for (const engine of engines()) {
  describe(`benchmarks on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer({ engine: engine.name });
    });
    after(async () => {
      await s.close();
    });

    test('suites are listed; roles and bad input are refused with the error body, nothing started', async () => {
      const list = await s.call('GET', '/v1/benchmarks');
      assert.equal(list.status, 200);
      const body = (await list.json()) as { suites: Array<{ suite: string; default_budget: { max_seconds: number } }> };
      assert.deepEqual(body.suites.map((x) => x.suite).sort(), ['load-local-v1', 'object-exact-v1', 'prompt-cache-v1']);
      assert.equal((await s.call('GET', '/v1/benchmarks', { key: null })).status, 401);
      // A writer cannot start one; a tenant-bound key cannot either; a reader cannot even list.
      const writer = await s.call('POST', '/v1/benchmarks/runs', { key: KEYS.acmeWriter, body: { suite: 'load-local-v1' } });
      assert.equal(writer.status, 403);
      assert.equal(((await writer.json()) as { error: { code: string } }).error.code, 'forbidden');
      for (const bad of [{ suite: 'nope' }, { suite: 'load-local-v1', budget: { max_seconds: 100_000 } }, { suite: 'load-local-v1', budget: { max_bytes: 10 } }, { suite: 'load-local-v1', extra: 1 }, {}]) {
        const r = await s.call('POST', '/v1/benchmarks/runs', { body: bad });
        assert.equal(r.status, 400, JSON.stringify(bad));
        assert.equal(((await r.json()) as { error: { code: string } }).error.code, 'invalid_request');
      }
      assert.equal((await s.call('GET', '/v1/benchmarks/runs/bm_00000000000000000000000000')).status, 404);
      assert.equal((await s.call('GET', '/v1/benchmarks/runs/not-an-id')).status, 400);
      const runs = (await (await s.call('GET', '/v1/benchmarks/runs')).json()) as { runs: unknown[] };
      assert.equal(runs.runs.length, 0);
    });

    test('load-local-v1 reports every figure with its anchor, one run at a time, ledger events carry the results digest', { timeout: 200_000 }, async () => {
      const start = await s.call('POST', '/v1/benchmarks/runs', { key: KEYS.operator, body: { suite: 'load-local-v1', budget: { max_seconds: 60, max_bytes: 4 * 1024 * 1024 } } });
      assert.equal(start.status, 202);
      const { run } = (await start.json()) as { run: BenchmarkRun };
      assert.equal(run.state, 'running');
      const second = await s.call('POST', '/v1/benchmarks/runs', { body: { suite: 'prompt-cache-v1' } });
      assert.equal(second.status, 409);
      const conflict = (await second.json()) as { error: { code: string; retryable: boolean; details: { running_run_id: string } } };
      assert.equal(conflict.error.code, 'conflict');
      assert.equal(conflict.error.retryable, true);
      assert.equal(conflict.error.details.running_run_id, run.run_id);
      const early = await s.call('GET', `/v1/benchmarks/runs/${run.run_id}/results`);
      assert.equal(early.status, 409);

      const ended = await waitForEnd(s, run.run_id);
      assert.equal(ended.state, 'completed', ended.failure_reason ?? '');
      const results = (await (await s.call('GET', `/v1/benchmarks/runs/${run.run_id}/results`)).json()) as {
        suite: string;
        results: Record<string, Record<string, number> | boolean | string[]>;
        environment: { cpus: number };
      };
      assert.equal(results.suite, 'load-local-v1');
      assert.equal(results.results['exact'], true);
      assert.deepEqual(results.results['failures'], []);
      const r = results.results as Record<string, Record<string, number>>;
      // Every spec figure, each beside the anchor measured in the same run.
      for (const [section, figure, anchor] of [
        ['object_ingest', 'mib_per_s', 'sha256_floor_mib_per_s'],
        ['rehydration', 'p95_ms', 'bare_http_p95_ms'],
        ['ai_gateway', 'p95_ms', 'bare_proxy_p95_ms'],
        ['exact_cache', 'writes_per_s', 'bare_http_per_s'],
        ['exact_cache', 'lookups_per_s', 'bare_http_per_s'],
        ['manifest_store', 'writes_per_s', 'durable_commit_floor_per_s'],
      ] as const) {
        assert.ok(r[section]![figure]! > 0, `${section}.${figure} = ${r[section]![figure]}`);
        assert.ok(r[section]![anchor]! > 0, `${section}.${anchor} = ${r[section]![anchor]}`);
      }
      assert.ok(results.environment.cpus >= 1);
      const md = await s.call('GET', `/v1/benchmarks/runs/${run.run_id}/results?format=markdown`);
      assert.equal(md.status, 200);
      assert.match(md.headers.get('content-type') ?? '', /text\/markdown/);
      const table = await md.text();
      for (const row of ['object ingest', 'rehydration p95', 'AI gateway p95', 'exact cache index writes', 'exact cache lookups', 'manifest store writes']) assert.match(table, new RegExp(`\\| ${row}`));

      const stored = ((await (await s.call('GET', `/v1/benchmarks/runs/${run.run_id}`)).json()) as { run: BenchmarkRun }).run;
      const started = (await ledgerEvents(s, 'benchmark.run.started')).filter((e) => e.payload['run_id'] === run.run_id);
      const completed = (await ledgerEvents(s, 'benchmark.run.completed')).filter((e) => e.payload['run_id'] === run.run_id);
      assert.equal(started.length, 1);
      assert.equal(completed.length, 1);
      assert.equal(completed[0]!.payload['state'], 'completed');
      assert.equal(completed[0]!.payload['results_sha256'], stored.results_sha256);
      assert.equal(stored.results_sha256, createHash('sha256').update(JSON.stringify(results)).digest('hex'));
      // The scratch deployment wrote nothing into the live one: no object of the benchmark tenant here.
      const objects = await s.call('POST', '/v1/s3/objects/list', { body: { tenant: 'bench', bucket: 'load-local' } });
      assert.equal(((await objects.json()) as { objects: unknown[] }).objects.length, 0);
    });

    test('a run past its time budget is killed (failed, time_budget_exceeded) and runs at the lowest CPU priority', { timeout: 60_000 }, async () => {
      const service = new BenchmarkService({ repo: s.app.store.benchmarkRuns, ledger: s.app.ledger, log: s.app.log, suiteProcess: HANGING_SUITE, graceMs: 0 });
      const ctx = { principal: makePrincipal('bench-admin', ['admin']), traceId: 'tr_test' };
      const run = await service.start(ctx, { suite: 'prompt-cache-v1', budget: { max_seconds: 5 } });
      const ended = await waitForEnd(s, run.run_id, 30_000);
      assert.equal(ended.state, 'failed');
      assert.equal(ended.failure_reason, 'time_budget_exceeded');
      assert.equal(ended.progress.phase, 'priority 19', 'the suite process reported the priority it ran at');
      // The run row is finished before its ledger event is appended: wait for the event rather than race it.
      let completed: Array<{ payload: Record<string, unknown> }> = [];
      for (const until = Date.now() + 15_000; completed.length === 0 && Date.now() < until; await new Promise((r) => setTimeout(r, 100))) {
        completed = (await ledgerEvents(s, 'benchmark.run.completed')).filter((e) => e.payload['run_id'] === run.run_id);
      }
      assert.equal(completed[0]?.payload['failure_reason'], 'time_budget_exceeded');
      await service.close();
    });

    test('a run whose process stopped heartbeating is taken over as interrupted', { timeout: 60_000 }, async () => {
      const old = new Date(Date.now() - 10 * 60_000).toISOString();
      const orphan: BenchmarkRun = { run_id: 'bm_01aaaaaaaaaaaaaaaaaaaaaaaa', suite: 'load-local-v1', state: 'running', budget: { max_seconds: 60, max_bytes: 1 << 20 }, progress: { phase: 'x', step: 1, steps: 6 }, actor: 'gone', started_at: old, heartbeat_at: old, finished_at: null, failure_reason: null, results_sha256: null };
      assert.equal(await s.app.store.benchmarkRuns.insertRunning(orphan), true);
      const service = new BenchmarkService({ repo: s.app.store.benchmarkRuns, ledger: s.app.ledger, log: s.app.log, suiteProcess: HANGING_SUITE, graceMs: 0 });
      const ctx = { principal: makePrincipal('bench-admin', ['admin']), traceId: 'tr_test' };
      const run = await service.start(ctx, { suite: 'prompt-cache-v1', budget: { max_seconds: 5 } });
      const taken = ((await (await s.call('GET', `/v1/benchmarks/runs/${orphan.run_id}`)).json()) as { run: BenchmarkRun }).run;
      assert.equal(taken.state, 'failed');
      assert.equal(taken.failure_reason, 'interrupted');
      await service.close();
      const closed = ((await (await s.call('GET', `/v1/benchmarks/runs/${run.run_id}`)).json()) as { run: BenchmarkRun }).run;
      assert.equal(closed.failure_reason, 'server_shutdown');
    });

    test('svc benchmark run prints the results table; --json the report; a failing start exits 1', { timeout: 120_000 }, async () => {
      const env = { SVC_URL: s.url, SVC_API_KEY: ADMIN_KEY };
      const md = await runSvc(['benchmark', 'run', '--suite', 'prompt-cache-v1', '--max-seconds', '40'], env);
      assert.equal(md.status, 0, md.stderr);
      assert.match(md.stdout, /# Benchmark prompt-cache-v1/);
      assert.match(md.stdout, /\| false acceptance rate .* \| 0 \|/);
      const json = await runSvc(['--json', 'benchmark', 'run', '--suite', 'prompt-cache-v1', '--max-seconds', '40'], env);
      assert.equal(json.status, 0, json.stderr);
      const doc = JSON.parse(json.stdout) as { run: BenchmarkRun; results: { results: { cross_tenant_hits: number } } };
      assert.equal(doc.run.state, 'completed');
      assert.equal(doc.results.results.cross_tenant_hits, 0);
      const denied = await runSvc(['benchmark', 'run', '--suite', 'load-local-v1'], { SVC_URL: s.url, SVC_API_KEY: KEYS.acmeReader });
      assert.equal(denied.status, 1);
      const usage = await runSvc(['benchmark', 'run', '--suite', 'nope'], env);
      assert.equal(usage.status, 2);
      const list = await runSvc(['--json', 'benchmark', 'list', '--limit', '1'], env);
      assert.equal(list.status, 0, list.stderr);
      assert.equal((JSON.parse(list.stdout) as { runs: unknown[] }).runs.length, 1);
    });
  });
}
