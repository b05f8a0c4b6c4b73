/**
 * `attr-smoke provider`: provider mode end to end against the local mock
 * provider (tools/attr-mock-provider) — no external key, no network. Checks a
 * released answer is bound to the provider response hash and logged, that
 * every unusable provider answer fails closed, and that the provider key
 * appears nowhere in responses, the audit log or the artifacts.
 */
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { startMockProvider } from '../../../tools/attr-mock-provider/mock-provider.ts';
import type { AttributionResponse } from '../engine/index.ts';
import { SmokeRecorder, type SmokeReport } from './smoke-report.ts';
import { SMOKE_PROMPT, errorCodeOf, jsonOf, readAuditEntries } from './smoke-http.ts';
import { DEFAULT_SMOKE_CORPUS, startServiceProcess } from './service-process.ts';

const KEY_ENV = 'ATTR_SMOKE_MOCK_PROVIDER_KEY';

async function filesUnder(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries.filter((e) => e.isFile()).map((e) => path.join(e.parentPath, e.name));
}

export async function runProviderSmoke(options: { corpusPath?: string } = {}): Promise<SmokeReport> {
  const started = performance.now();
  const r = new SmokeRecorder();
  const apiKey = `mock-${randomBytes(16).toString('hex')}`;
  const provider = await startMockProvider({ corpusPath: options.corpusPath ?? DEFAULT_SMOKE_CORPUS, requiredApiKey: apiKey, oversizedBytes: 300_000 });
  let svc;
  try {
    svc = await startServiceProcess({
      ...(options.corpusPath ? { corpusPath: options.corpusPath } : {}),
      env: { [KEY_ENV]: apiKey },
      configure: (d) => {
        d.providers = [
          { provider_id: 'mock', base_url: provider.baseUrl, model: 'mock-model', api_key_env: KEY_ENV, timeout_ms: 10_000, max_output_bytes: 65_536 },
          { provider_id: 'mock-unkeyed', base_url: provider.baseUrl, model: 'mock-model', api_key_env: 'ATTR_SMOKE_KEY_THAT_IS_NOT_SET' },
        ];
      },
    });
    const call = (providerId: string, content: string) =>
      svc!.request('/v1/provider/attribute', { auth: true, json: { provider_id: providerId, messages: [{ role: 'user', content }], gross_revenue: '5.00' } });

    let released: AttributionResponse | undefined;
    await r.step('provider_answer_attributed', async () => {
      const res = await call('mock', SMOKE_PROMPT);
      const body = (await jsonOf(res)) as unknown as AttributionResponse;
      released = body;
      const bound = body.event?.answer_origin === 'provider' && body.event?.provider?.provider_id === 'mock' && /^[0-9a-f]{64}$/.test(body.event?.provider?.response_sha256 ?? '');
      r.expect('provider_answer_attributed', res.status === 200 && bound && body.source_footer?.source_rows.length > 0, `→ ${res.status}, status ${String(body.status)}, provider bound ${bound}`);
    });
    await r.step('provider_request_logged', async () => {
      const entries = await readAuditEntries(svc!.auditLogPath);
      const entry = entries.find((e) => e.record.event_hash === released?.event.event_hash);
      r.expect('provider_request_logged', entry?.record.provider?.response_sha256 === released?.event.provider?.response_sha256 && entry?.record.route === 'provider_attribute', `audit entry ${entry ? `seq ${entry.seq}` : 'missing'}`);
    });
    const cases: Array<{ name: string; providerId: string; content: string; code: string; status: number }> = [
      { name: 'filtered_answer_refused', providerId: 'mock', content: `${SMOKE_PROMPT} [mock:content_filter]`, code: 'provider_filtered', status: 502 },
      { name: 'malformed_answer_refused', providerId: 'mock', content: `${SMOKE_PROMPT} [mock:malformed]`, code: 'provider_malformed', status: 502 },
      { name: 'answer_without_choices_refused', providerId: 'mock', content: `${SMOKE_PROMPT} [mock:no_choices]`, code: 'provider_malformed', status: 502 },
      { name: 'oversized_answer_refused', providerId: 'mock', content: `${SMOKE_PROMPT} [mock:oversized]`, code: 'provider_output_too_large', status: 502 },
      { name: 'truncated_answer_refused', providerId: 'mock', content: `${SMOKE_PROMPT} [mock:length]`, code: 'provider_output_too_large', status: 502 },
      { name: 'upstream_error_refused', providerId: 'mock', content: `${SMOKE_PROMPT} [mock:http_error]`, code: 'provider_failed', status: 502 },
      { name: 'unknown_provider_refused', providerId: 'not-allowlisted', content: SMOKE_PROMPT, code: 'unknown_provider', status: 400 },
      { name: 'missing_key_refused', providerId: 'mock-unkeyed', content: SMOKE_PROMPT, code: 'provider_key_missing', status: 503 },
    ];
    for (const c of cases) {
      await r.step(c.name, async () => {
        const res = await call(c.providerId, c.content);
        const body = await jsonOf(res);
        r.expect(c.name, res.status === c.status && errorCodeOf(body) === c.code && !('source_footer' in body), `→ ${res.status} ${String(errorCodeOf(body))}`);
      });
    }
    await r.step('refusals_logged', async () => {
      const entries = await readAuditEntries(svc!.auditLogPath);
      const refused = entries.filter((e) => e.record.outcome === 'refused').map((e) => e.record.error_code);
      r.expect('refusals_logged', refused.length === cases.length, `${refused.length} refused entries: ${refused.join(', ')}`);
    });
    await r.step('provider_key_never_exposed', async () => {
      const files = await filesUnder(svc!.dir);
      const leaking: string[] = [];
      for (const f of files) if ((await readFile(f, 'utf8')).includes(apiKey)) leaking.push(path.relative(svc!.dir, f));
      const released = JSON.stringify(await jsonOf(await call('mock', SMOKE_PROMPT)));
      r.expect('provider_key_never_exposed', leaking.length === 0 && !released.includes(apiKey) && !svc!.stderr().includes(apiKey), `files containing the key: [${leaking.join(', ')}]`);
    });
    await r.step('provider_metrics', async () => {
      const m = await jsonOf(await svc!.request('/v1/metrics', { auth: true }));
      // Every case except unknown provider and missing key reached the mock, plus two successful calls.
      r.expect('provider_metrics', m.provider_requests_total === cases.length - 2 + 2 && m.provider_route_count === 2, `provider_requests_total ${String(m.provider_requests_total)}, provider_route_count ${String(m.provider_route_count)}`);
    });
  } finally {
    await svc?.stop();
    await provider.close();
  }
  return r.report('provider', svc?.url ?? null, started);
}
