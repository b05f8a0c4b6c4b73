import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startServiceProcess, type ServiceProcess } from '../../../src/attr/smoke/service-process.ts';
import { readAuditEntries } from '../../../src/attr/smoke/smoke-http.ts';
import { EXAMPLE_CORPUS } from './run-bin.ts';

let svc: ServiceProcess;
before(async () => {
  svc = await startServiceProcess({ corpusPath: EXAMPLE_CORPUS, configure: (d) => void (d.rate_limit = { window_ms: 60_000, max_requests: 25 }) });
});
after(async () => svc.stop());

test('every response carries a fresh server-generated request id, even when the client sends one', async () => {
  const a = await svc.request('/healthz', { headers: { 'x-request-id': 'client-chosen' } });
  const b = await svc.request('/healthz');
  const ids = [a.headers.get('x-request-id'), b.headers.get('x-request-id')];
  assert.match(ids[0]!, /^req_[0-9a-z]{26}$/);
  assert.notEqual(ids[0], ids[1]);
});

test('an unknown route answers 404 with the attr error body and the security headers', async () => {
  const res = await svc.request('/v1/nothing-here');
  assert.equal(res.status, 404);
  assert.deepEqual(await res.json(), { error: { code: 'not_found', message: 'no such route', retryable: false } });
  assert.equal(res.headers.get('cache-control'), 'no-store');
});

test('/openapi.json describes every public and protected route with bearer security on the protected ones', async () => {
  const doc = (await (await svc.request('/openapi.json')).json()) as { openapi: string; paths: Record<string, Record<string, { security?: unknown[] }>> };
  assert.match(doc.openapi, /^3\./);
  for (const p of ['/healthz', '/readyz', '/.well-known/attr.json', '/v1/attribute', '/v1/provider/attribute', '/v1/metrics', '/v1/metrics/prometheus']) assert.ok(doc.paths[p], p);
  assert.deepEqual(doc.paths['/v1/attribute']!.post!.security, [{ bearer: [] }]);
  assert.deepEqual(doc.paths['/healthz']!.get!.security, [], 'public routes declare no security requirement');
});

test('unauthenticated calls are rejected with 401 and counted as fail-closed', async () => {
  const before = (await (await svc.request('/v1/metrics', { auth: true })).json()) as Record<string, number>;
  const res = await svc.request('/v1/attribute', { json: { prompt: 'x', gross_revenue: '1' }, headers: { authorization: 'Bearer wrong' } });
  assert.equal(res.status, 401);
  assert.equal(res.headers.get('www-authenticate'), 'Bearer realm="attr"');
  const after = (await (await svc.request('/v1/metrics', { auth: true })).json()) as Record<string, number>;
  assert.equal(after.blocked_requests_total! - before.blocked_requests_total!, 1);
  assert.equal(after.attribution_requests_total, before.attribution_requests_total, 'an unauthenticated call never reaches attribution');
});

test('the Prometheus endpoint exposes the same counters as the JSON endpoint', async () => {
  const { audit_head: head, ...json } = (await (await svc.request('/v1/metrics', { auth: true })).json()) as Record<string, number> & { audit_head: unknown };
  const text = await (await svc.request('/v1/metrics/prometheus', { auth: true })).text();
  assert.deepEqual(Object.keys(json).sort(), [
    'attribution_requests_total', 'audit_errors_total', 'blocked_requests_total', 'provider_requests_total', 'provider_route_count',
    'rate_limited_requests_total', 'ready_status', 'requests_total', 'uptime_seconds',
  ]);
  assert.deepEqual(Object.keys(head as object).sort(), ['hash', 'segment', 'seq'], 'the audit head rides along, not as a counter');
  for (const name of Object.keys(json)) assert.match(text, new RegExp(`^# TYPE attr_${name} `, 'm'), name);
  assert.match(text, /^attr_ready_status 1$/m);
});

test('each attribution request gets one audit entry: ready responses and fail-closed refusals alike', async () => {
  const before = (await readAuditEntries(svc.auditLogPath)).length;
  const ok = await svc.request('/v1/attribute', { auth: true, json: { prompt: 'How do honeybees forage?', gross_revenue: '7.00' } });
  const negative = await svc.request('/v1/attribute', { auth: true, json: { prompt: 'How do honeybees forage?', gross_revenue: '-7.00' } });
  assert.equal(ok.status, 200);
  assert.equal(negative.status, 400);
  const entries = (await readAuditEntries(svc.auditLogPath)).slice(before);
  assert.deepEqual(entries.map((e) => [e.record.outcome, e.record.error_code]), [[((await ok.json()) as { status: string }).status, null], ['refused', 'negative_revenue']]);
  assert.ok(!JSON.stringify(entries).includes('honeybees'), 'no prompt text in the audit log');
});

test('the per-client rate limit answers 429 with Retry-After once the window is full and keeps refusing inside it', async () => {
  const before = (await (await svc.request('/v1/metrics', { auth: true })).json()) as Record<string, number>;
  const statuses: number[] = [];
  let retryAfter: string | null = null;
  for (let i = 0; i < 30; i++) {
    const res = await svc.request('/v1/metrics', { auth: true });
    statuses.push(res.status);
    if (res.status === 429) retryAfter ??= res.headers.get('retry-after');
    await res.arrayBuffer();
  }
  const limited = statuses.filter((s) => s === 429).length;
  assert.ok(limited > 0);
  assert.ok(statuses.indexOf(429) > 0 && statuses.slice(statuses.indexOf(429)).every((s) => s === 429), 'once full, the window stays full');
  assert.match(retryAfter ?? '', /^[1-9][0-9]*$/);
  assert.equal(before.rate_limited_requests_total, 0);
});
