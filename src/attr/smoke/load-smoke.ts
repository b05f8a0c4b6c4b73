/**
 * `attr-smoke load`: many concurrent authenticated attributions against one
 * service, then the audit chain must verify with exactly one entry per
 * request and the counters must agree.
 */
import { verifyAuditLogFile } from '../audit/verify-audit-log.ts';
import { SmokeRecorder, type SmokeReport } from './smoke-report.ts';
import { SMOKE_PROMPT, jsonOf } from './smoke-http.ts';
import { startServiceProcess } from './service-process.ts';

export interface LoadSmokeOptions {
  corpusPath?: string;
  requests?: number;
  concurrency?: number;
}

export async function runLoadSmoke(options: LoadSmokeOptions = {}): Promise<SmokeReport> {
  const started = performance.now();
  const total = options.requests ?? 200;
  const concurrency = options.concurrency ?? 16;
  const r = new SmokeRecorder();
  const svc = await startServiceProcess({
    ...(options.corpusPath ? { corpusPath: options.corpusPath } : {}),
    configure: (d) => {
      d.rate_limit = { window_ms: 60_000, max_requests: total * 2 + 10 };
    },
  });
  try {
    const statuses = new Map<number, number>();
    let next = 0;
    const t0 = performance.now();
    const worker = async (): Promise<void> => {
      while (next < total) {
        const i = next++;
        const res = await svc.request('/v1/attribute', { auth: true, json: { prompt: `${SMOKE_PROMPT} (${i})`, gross_revenue: `${i}.${String(i % 100).padStart(2, '0')}` } });
        await res.arrayBuffer();
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
      }
    };
    await Promise.all(Array.from({ length: concurrency }, worker));
    const seconds = (performance.now() - t0) / 1000;
    r.figures.requests = total;
    r.figures.concurrency = concurrency;
    r.figures.requests_per_second = Math.round(total / seconds);
    r.expect('all_requests_served', statuses.get(200) === total, `statuses ${JSON.stringify(Object.fromEntries(statuses))}`);

    const audit = await verifyAuditLogFile(svc.auditLogPath);
    r.expect('audit_chain_continuity', audit.ok && audit.head_seq === total, `chain ok ${audit.ok}, head_seq ${String(audit.head_seq)}, first bad ${JSON.stringify(audit.first_bad_entry)}`);

    const metrics = await jsonOf(await svc.request('/v1/metrics', { auth: true }));
    r.expect('counters_agree', metrics.attribution_requests_total === total && metrics.rate_limited_requests_total === 0, `attribution_requests_total ${String(metrics.attribution_requests_total)}`);
  } finally {
    await svc.stop();
  }
  return r.report('load', svc.url, started);
}
