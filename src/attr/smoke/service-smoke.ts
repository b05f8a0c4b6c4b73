/**
 * `attr-smoke service`: liveness, readiness, security headers, rejection of
 * unauthorized calls, an authenticated attribution that verifies, metrics in
 * both formats, and the audit log entry of that attribution.
 */
import { verifyAuditLogFile } from '../audit/verify-audit-log.ts';
import { verifyAttributionResponse, type AttributionResponse } from '../engine/index.ts';
import { REQUEST_ID_HEADER, SECURITY_HEADERS } from '../service/security-headers.ts';
import { SmokeRecorder, type SmokeReport } from './smoke-report.ts';
import { SMOKE_PROMPT, errorCodeOf, jsonOf, readAuditEntries } from './smoke-http.ts';
import { startServiceProcess } from './service-process.ts';

export async function runServiceSmoke(options: { corpusPath?: string } = {}): Promise<SmokeReport> {
  const started = performance.now();
  const r = new SmokeRecorder();
  const svc = await startServiceProcess(options.corpusPath ? { corpusPath: options.corpusPath } : {});
  try {
    await r.step('liveness', async () => {
      const res = await svc.request('/healthz');
      r.expect('liveness', res.status === 200 && (await jsonOf(res)).status === 'ok', `GET /healthz → ${res.status}`);
    });
    await r.step('readiness', async () => {
      const res = await svc.request('/readyz');
      const body = await jsonOf(res);
      const checks = (body.checks as Array<{ status: string }> | undefined) ?? [];
      r.expect('readiness', res.status === 200 && checks.length >= 10 && checks.every((c) => c.status === 'passed'), `GET /readyz → ${res.status}, ${checks.length} checks`);
    });
    await r.step('security_headers', async () => {
      const res = await svc.request('/healthz', { headers: { origin: 'https://evil.example' } });
      const missing = Object.entries(SECURITY_HEADERS).filter(([k, v]) => res.headers.get(k) !== v).map(([k]) => k);
      const cors = [...res.headers.keys()].filter((k) => k.startsWith('access-control-'));
      const requestId = res.headers.get(REQUEST_ID_HEADER) ?? '';
      r.expect('security_headers', missing.length === 0 && cors.length === 0 && /^req_[0-9a-z]{26}$/.test(requestId), `missing: [${missing.join(', ')}], cors: [${cors.join(', ')}], ${REQUEST_ID_HEADER}: ${requestId}`);
    });
    await r.step('discovery_and_openapi', async () => {
      const manifest = await jsonOf(await svc.request('/.well-known/attr.json'));
      const openapi = await jsonOf(await svc.request('/openapi.json'));
      const paths = Object.keys((openapi.paths as object | undefined) ?? {});
      r.expect('discovery_and_openapi', manifest.schema === 'attr-discovery-manifest/v1' && paths.includes('/v1/attribute'), `manifest ${String(manifest.schema)}, openapi paths ${paths.length}`);
    });
    await r.step('unauthorized_rejected', async () => {
      const body = { prompt: SMOKE_PROMPT, gross_revenue: '1.00' };
      const none = await svc.request('/v1/attribute', { json: body });
      const wrong = await svc.request('/v1/attribute', { json: body, headers: { authorization: 'Bearer not-the-token' } });
      const metrics = await svc.request('/v1/metrics');
      r.expect('unauthorized_rejected', none.status === 401 && wrong.status === 401 && metrics.status === 401 && errorCodeOf(await jsonOf(none)) === 'unauthenticated', `no token ${none.status}, wrong token ${wrong.status}, metrics ${metrics.status}`);
    });
    let response: AttributionResponse | undefined;
    await r.step('authenticated_attribution', async () => {
      const res = await svc.request('/v1/attribute', { auth: true, json: { prompt: SMOKE_PROMPT, gross_revenue: '12.50' } });
      const body = (await jsonOf(res)) as unknown as AttributionResponse;
      response = body;
      const report = res.status === 200 ? verifyAttributionResponse(body, { displayText: body.display.rendered_text }) : undefined;
      r.expect(
        'authenticated_attribution',
        res.status === 200 && body.schema === 'attr-service-attribution-response/v1' && body.status === 'ready' && report?.production_display_ready === true,
        `POST /v1/attribute → ${res.status}, status ${String(body.status)}, production_display_ready ${String(report?.production_display_ready)}`,
      );
    });
    await r.step('metrics', async () => {
      const json = await jsonOf(await svc.request('/v1/metrics', { auth: true }));
      const prom = await svc.request('/v1/metrics/prometheus', { auth: true });
      const text = await prom.text();
      r.expect(
        'metrics',
        json.attribution_requests_total === 1 && json.ready_status === 1 && Number(json.blocked_requests_total) >= 3 && /attr_attribution_requests_total/.test(text) && (prom.headers.get('content-type') ?? '').startsWith('text/plain'),
        `attribution_requests_total ${String(json.attribution_requests_total)}, blocked_requests_total ${String(json.blocked_requests_total)}, ready_status ${String(json.ready_status)}, prometheus ${prom.status}`,
      );
    });
    await r.step('audit_logging', async () => {
      const report = await verifyAuditLogFile(svc.auditLogPath);
      const entries = await readAuditEntries(svc.auditLogPath);
      const logged = entries.some((e) => e.record.event_hash === response?.event.event_hash && e.record.outcome === response?.status);
      r.expect('audit_logging', report.ok && entries.length === 1 && logged, `chain ok ${report.ok}, ${entries.length} entries, response event logged ${logged}`);
    });
  } finally {
    await svc.stop();
  }
  return r.report('service', svc.url, started);
}
