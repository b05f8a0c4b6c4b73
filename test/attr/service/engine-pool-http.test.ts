import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { verifyAuditLogFile } from '../../../src/attr/audit/verify-audit-log.ts';
import { createAttributionEngine, loadCorpus } from '../../../src/attr/engine/index.ts';
import { startServiceProcess } from '../../../src/attr/smoke/service-process.ts';
import { readAuditEntries } from '../../../src/attr/smoke/smoke-http.ts';
import { EXAMPLE_CORPUS } from './run-bin.ts';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

test('concurrent attributions through the engine worker pool: one audit entry each, an intact chain, and the in-process engine bytes', async () => {
  const svc = await startServiceProcess({ corpusPath: EXAMPLE_CORPUS, configure: (d) => void (d.engine = { workers: 2 }) });
  try {
    const ready = (await (await svc.request('/readyz')).json()) as { checks: Array<{ name: string; status: string; detail: string }> };
    assert.match(ready.checks.find((c) => c.name === 'engine_load')!.detail, /, 2 engine worker thread\(s\)$/);

    const corpus = await loadCorpus(EXAMPLE_CORPUS);
    const bodies = Array.from({ length: 24 }, (_, i) => {
      const source = corpus.sources[i % corpus.sources.length]!;
      // Supported corpus text, an unsupported claim, the demonstration answer, and a refusal the engine raises.
      if (i % 4 === 0) return { prompt: `q${i}`, output: source.chunks[0]!.text, gross_revenue: `${i}.25` };
      if (i % 4 === 1) return { prompt: `q${i}`, output: `Nothing registered says that ${i} lanterns float on Neptune.`, gross_revenue: '3.00' };
      if (i % 4 === 2) return { prompt: source.title, gross_revenue: '10' };
      return { prompt: `q${i}`, output: source.chunks[0]!.text, gross_revenue: '-2.00' };
    });
    const responses = await Promise.all(
      bodies.map(async (body) => {
        const res = await svc.request('/v1/attribute', { auth: true, json: body });
        return { body, status: res.status, requestId: res.headers.get('x-request-id')!, contentType: res.headers.get('content-type'), text: await res.text() };
      }),
    );
    assert.deepEqual(
      responses.map((r) => r.status),
      bodies.map((b) => (b.gross_revenue.startsWith('-') ? 400 : 200)),
    );

    // One entry per request, each request id once, in one chain that verifies.
    const entries = await readAuditEntries(svc.auditLogPath);
    assert.equal(entries.length, bodies.length);
    assert.deepEqual(entries.map((e) => e.record.request_id).sort(), responses.map((r) => r.requestId).sort());
    assert.deepEqual(entries.map((e) => e.seq), entries.map((_, i) => i + 1));
    const report = await verifyAuditLogFile(svc.auditLogPath);
    assert.equal(report.ok, true);
    assert.equal(report.head_seq, bodies.length);
    const byRequest = new Map(entries.map((e) => [e.record.request_id, e.record]));

    // Each released response is exactly what the in-process engine gives for the same input and context.
    const engine = createAttributionEngine(corpus);
    const outcomes = new Set<string>();
    for (const r of responses) {
      const record = byRequest.get(r.requestId)!;
      if (r.status !== 200) {
        assert.deepEqual([record.outcome, record.error_code], ['refused', 'negative_revenue']);
        outcomes.add('refused');
        continue;
      }
      assert.equal(r.contentType, 'application/json; charset=utf-8');
      const served = JSON.parse(r.text) as { status: string; event: { event_id: string; created_at: string; event_hash: string }; source_footer: { footer_hash: string } };
      const expected = engine.attribute({
        prompt: r.body.prompt,
        ...(r.body.output === undefined ? {} : { output: r.body.output }),
        grossRevenue: r.body.gross_revenue,
        context: { eventId: served.event.event_id, requestId: r.requestId, operator: 'local-operator', createdAt: served.event.created_at },
      });
      assert.equal(r.text, JSON.stringify(expected), `response of ${r.requestId}`);
      assert.deepEqual(
        [record.outcome, record.event_id, record.event_hash, record.footer_hash, record.answer_sha256, record.prompt_sha256],
        [expected.status, expected.event.event_id, expected.event.event_hash, expected.source_footer.footer_hash, expected.event.answer_sha256, sha256(r.body.prompt)],
      );
      outcomes.add(expected.status);
    }
    assert.deepEqual([...outcomes].sort(), ['blocked', 'ready', 'refused']);

    const metrics = (await (await svc.request('/v1/metrics', { auth: true })).json()) as { attribution_requests_total: number };
    assert.equal(metrics.attribution_requests_total, bodies.length);
  } finally {
    await svc.stop();
  }
});

test('engine.workers 0 runs the engine in the service thread and serves the same responses', async () => {
  const svc = await startServiceProcess({ corpusPath: EXAMPLE_CORPUS, configure: (d) => void (d.engine = { workers: 0 }) });
  try {
    const ready = (await (await svc.request('/readyz')).json()) as { checks: Array<{ name: string; detail: string }> };
    assert.match(ready.checks.find((c) => c.name === 'engine_load')!.detail, /engine in the service thread$/);
    const body = { prompt: 'How do honeybees forage?', gross_revenue: '7.00' };
    const res = await svc.request('/v1/attribute', { auth: true, json: body });
    assert.equal(res.status, 200);
    const text = await res.text();
    const served = JSON.parse(text) as { event: { event_id: string; created_at: string } };
    const engine = createAttributionEngine(await loadCorpus(EXAMPLE_CORPUS));
    const expected = engine.attribute({
      prompt: body.prompt,
      grossRevenue: body.gross_revenue,
      context: { eventId: served.event.event_id, requestId: res.headers.get('x-request-id')!, operator: 'local-operator', createdAt: served.event.created_at },
    });
    assert.equal(text, JSON.stringify(expected));
    assert.equal((await verifyAuditLogFile(svc.auditLogPath)).head_seq, 1);
  } finally {
    await svc.stop();
  }
});

test('Server-Timing breaks an attribution down only when ATTR_SERVICE_SERVER_TIMING=1', async () => {
  const corpus = await loadCorpus(EXAMPLE_CORPUS);
  const body = { prompt: 'q', output: corpus.sources[0]!.chunks[0]!.text, gross_revenue: '1.00' };
  const timed = await startServiceProcess({ corpusPath: EXAMPLE_CORPUS, env: { ATTR_SERVICE_SERVER_TIMING: '1' }, configure: (d) => void (d.engine = { workers: 1 }) });
  try {
    const res = await timed.request('/v1/attribute', { auth: true, json: body });
    assert.equal(res.status, 200);
    await res.arrayBuffer();
    const header = res.headers.get('server-timing') ?? '';
    const parts = Object.fromEntries(header.split(', ').map((p) => {
      const [name, dur] = p.split(';dur=');
      return [name!, Number(dur)];
    }));
    assert.deepEqual(Object.keys(parts), ['engine', 'handoff', 'audit', 'body', 'total']);
    for (const [name, ms] of Object.entries(parts)) assert.ok(Number.isFinite(ms) && ms >= 0, `${name}=${ms}`);
    assert.ok(parts.engine! > 0);
    assert.ok(parts.total! >= parts.engine! + parts.handoff! + parts.audit! - 0.01, header);
    // Refusals carry none, and neither does a service started without the switch.
    const refused = await timed.request('/v1/attribute', { auth: true, json: { ...body, gross_revenue: '-1' } });
    assert.equal(refused.status, 400);
    assert.equal(refused.headers.get('server-timing'), null);
  } finally {
    await timed.stop();
  }
  const plain = await startServiceProcess({ corpusPath: EXAMPLE_CORPUS, configure: (d) => void (d.engine = { workers: 1 }) });
  try {
    const res = await plain.request('/v1/attribute', { auth: true, json: body });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('server-timing'), null);
  } finally {
    await plain.stop();
  }
});
