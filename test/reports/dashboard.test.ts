/**
 * `GET /v1/reports/dashboard` through the real HTTP server and `svc report
 * dashboard` through the real CLI, on SQLite and PostgreSQL: figures equal an
 * independent recomputation from the stored rows, tenant filtering holds,
 * the overhead is 0.0 with a note when no spans match, and the report names
 * its window and ledger head.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { runSvc } from '../helpers/cli.ts';
import { engines } from '../helpers/engines.ts';
import { ADMIN_KEY, KEYS } from '../helpers/server.ts';
import { ACME_AUDITOR, type Seeded, seed, startSeeded } from './support.ts';

type Json = any;

for (const engine of engines()) {
  describe(`dashboard report (${engine.name})`, { skip: engine.skip }, () => {
    let s: Seeded;
    const report = async (query = '', key: string = ADMIN_KEY): Promise<Json> => {
      const r = await s.svc.call('GET', `/v1/reports/dashboard${query}`, { key });
      assert.equal(r.status, 200, await r.clone().text());
      return r.json();
    };

    before(async () => {
      s = await startSeeded(engine.name);
      await seed(s.svc);
    });
    after(async () => s?.close());

    test('three figures equal a recomputation straight from the manifest, compute-manifest and ledger rows', async () => {
      const r = await report('?tenant=acme');
      const db = s.svc.app.store.db;
      const { from, to } = r.window;
      // 1. Baseline bytes in: plain SQL over the manifests table.
      const bytes = await db.get<{ n: number }>('SELECT SUM(bytes_in) AS n FROM manifests WHERE tenant = $1 AND created_at >= $2 AND created_at < $3', ['acme', from, to]);
      assert.equal(r.sections.executive.savings.measured.baseline_bytes_in.value, Number(bytes!.n));
      assert.equal(r.sections.executive.savings.measured.baseline_bytes_in.value, 300_000 * 2 + 80_000);
      // 2. Tokens avoided by cache: the compute manifests' bodies, summed here.
      const ai = await db.all<{ body: string }>('SELECT body FROM ai_manifests WHERE tenant = $1 AND created_at >= $2 AND created_at < $3', ['acme', from, to]);
      const avoided = ai.map((row) => JSON.parse(row.body).tokens.avoided as number).reduce((a, b) => a + b, 0);
      assert.ok(avoided > 0, 'the exact hit avoided tokens');
      assert.equal(r.sections.executive.savings.measured.tokens_avoided_by_cache.value, avoided);
      assert.equal(r.sections.executive.savings.measured.provider_calls_avoided_by_cache.value, 1);
      // 3. Ledger events of one type up to the named head, and the head itself.
      const head = await db.get<{ id: string; hash: string; seq: number }>('SELECT id, hash, seq FROM ledger_events WHERE id = $1', [r.ledger_head.event_id]);
      assert.equal(head!.hash, r.ledger_head.hash);
      const written = await db.get<{ n: number }>("SELECT COUNT(*) AS n FROM ledger_events WHERE tenant = $1 AND type = 'manifest.written' AND ts >= $2 AND ts < $3 AND seq <= $4", ['acme', from, to, head!.seq]);
      assert.equal(r.sections.security.events_by_type['manifest.written'], Number(written!.n));
      assert.equal(Number(written!.n), 5, 'three objects and two AI requests');
      // Dedupe of the copied object is measured, not estimated.
      const dedupe = await db.all<{ body: string }>("SELECT body FROM manifests WHERE tenant = 'acme' AND mode = 'enforce'");
      assert.equal(r.sections.executive.savings.measured.bytes_avoided_dedupe.value, dedupe.map((m) => JSON.parse(m.body).stats.bytes_deduplicated as number).reduce((a, b) => a + b, 0));
      assert.ok(r.sections.executive.savings.measured.bytes_avoided_dedupe.value >= 250_000);
    });

    test('the overhead p95 is the nearest-rank p95 of the recorded overhead spans', async () => {
      const r = await report('?tenant=acme');
      const rows = await s.svc.app.store.db.all<{ body: string }>("SELECT body FROM ai_manifests WHERE tenant = 'acme'");
      const spans = rows.map((row) => JSON.parse(row.body).latency_ms).filter((l) => l.upstream !== null).map((l) => l.overhead as number).sort((a, b) => a - b);
      assert.equal(spans.length, 1, 'the miss went upstream, the hit did not');
      const fig = r.sections.executive.overhead.gateway_overhead_p95;
      assert.equal(fig.value, spans[Math.ceil(0.95 * spans.length) - 1]);
      assert.equal(fig.samples, 1);
      assert.equal(fig.note, undefined);
      assert.deepEqual(r.sections.ai.gateway_overhead_p95, fig);
    });

    test('with no matching overhead spans the value is 0.0 and a note says why', async () => {
      const r = await report('?tenant=globex');
      const fig = r.sections.executive.overhead.gateway_overhead_p95;
      assert.equal(fig.value, 0);
      assert.equal(fig.samples, 0);
      assert.match(fig.note, /no recorded overhead spans/);
    });

    test('measured and estimated savings are separate groups; every estimate is labelled with its formula and constants', async () => {
      const { savings } = (await report()).sections.executive;
      for (const f of Object.values(savings.measured) as Json[]) {
        assert.equal(f.kind, 'measured');
        assert.ok(f.method.length > 10);
      }
      for (const f of Object.values(savings.estimated) as Json[]) {
        assert.equal(f.estimate, true);
        assert.equal(f.kind, 'estimated');
        assert.ok(f.formula.length > 5);
        for (const c of Object.values(f.constants) as Json[]) assert.ok(c.source.length > 5 && typeof c.value === 'number');
      }
      const bytesAvoided = savings.measured.bytes_avoided_dedupe.value + savings.measured.bytes_avoided_compression.value;
      assert.equal(savings.estimated.future_capacity_avoided.value, bytesAvoided * 3);
    });

    test('a tenant-bound key sees only its tenant and cannot name another', async () => {
      const own = await report('', ACME_AUDITOR);
      assert.equal(own.tenant, 'acme');
      assert.equal(own.sections.platform.byte_manifests.value, 3);
      const all = await report();
      assert.equal(all.tenant, null);
      assert.equal(all.sections.platform.byte_manifests.value, 4);
      const denied = await s.svc.call('GET', '/v1/reports/dashboard?tenant=globex', { key: ACME_AUDITOR });
      assert.equal(denied.status, 403);
      assert.equal(((await denied.json()) as Json).error.code, 'tenant_forbidden');
      const noPermission = await s.svc.call('GET', '/v1/reports/dashboard', { key: KEYS.acmeWriter });
      assert.equal(noPermission.status, 403);
    });

    test('the window filters rows; a window before any write is all zeros; a bad window is a 400', async () => {
      const empty = await report('?from=2001-01-01T00:00:00Z&to=2001-01-02T00:00:00Z');
      assert.deepEqual(empty.window, { from: '2001-01-01T00:00:00.000Z', to: '2001-01-02T00:00:00.000Z' });
      assert.equal(empty.sections.executive.work_units.value, 0);
      assert.equal(empty.sections.security.ledger_events.value, 0);
      const bad = await s.svc.call('GET', '/v1/reports/dashboard?from=yesterday');
      assert.equal(bad.status, 400);
      const reversed = await s.svc.call('GET', '/v1/reports/dashboard?from=2030-01-02T00:00:00Z&to=2030-01-01T00:00:00Z');
      assert.equal(reversed.status, 400);
    });

    test('svc report dashboard prints the same report', async () => {
      const r = await runSvc(['--url', s.svc.url, '--json', 'report', 'dashboard', '--tenant', 'acme'], { SVC_API_KEY: ADMIN_KEY });
      assert.equal(r.status, 0, r.stderr);
      const body = JSON.parse(r.stdout);
      assert.equal(body.tenant, 'acme');
      assert.equal(body.sections.platform.byte_manifests.value, 3);
    });
  });
}
