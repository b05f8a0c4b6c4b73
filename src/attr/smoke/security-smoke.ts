/**
 * `attr-smoke security`: abuse cases must fail closed against the real
 * service — unauthenticated and forged tokens, oversized prompt / output /
 * body, negative and malformed revenue, unknown fields, unknown provider,
 * wrong content type, a CORS probe, forged verification handles and a copied
 * text without its footer (checked with the shipped verifiers against the
 * deployment's trust store: the smoke deployment signs its footers), and a
 * rate-limit flood counted in rate_limited_requests_total.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createFooterKey } from '../config/footer-key.ts';
import type { TrustStore } from '../trust-store/trust-store-schema.ts';
import { verifyAttributionResponse, verifySourceFooter, type AttributionResponse, type FooterVerificationReport } from '../engine/index.ts';
import { SmokeRecorder, type SmokeReport } from './smoke-report.ts';
import { SMOKE_PROMPT, errorCodeOf, jsonOf } from './smoke-http.ts';
import { startServiceProcess } from './service-process.ts';

const WINDOW_MS = 1_500;
const MAX_REQUESTS = 40;

function passes(report: FooterVerificationReport): boolean {
  return report.status === 'passed' && report.public_reliance_ready;
}

export async function runSecuritySmoke(options: { corpusPath?: string } = {}): Promise<SmokeReport> {
  const started = performance.now();
  const r = new SmokeRecorder();
  // A throw-away footer signing key and trust store, so footers are checked the way relying parties check them.
  const keyDir = await mkdtemp(path.join(os.tmpdir(), 'attr-smoke-key-'));
  const trustStorePath = path.join(keyDir, 'trust-store.json');
  const key = await createFooterKey({ keyId: 'smoke-footer', privateKey: path.join(keyDir, 'footer.pem'), trustStore: trustStorePath, issuer: 'attr-smoke' });
  if (!key.ok) throw new Error(`cannot create the smoke footer key: ${key.problem}`);
  const trustStore = JSON.parse(await readFile(trustStorePath, 'utf8')) as TrustStore;
  const svc = await startServiceProcess({
    ...(options.corpusPath ? { corpusPath: options.corpusPath } : {}),
    configure: (d) => {
      d.rate_limit = { window_ms: WINDOW_MS, max_requests: MAX_REQUESTS };
      d.limits = { max_request_bytes: 65_536, max_prompt_bytes: 2_048, max_output_bytes: 16_384, max_messages: 8 };
      d.trust_store_path = trustStorePath;
      d.footer_signing = key.summary.config_snippet.footer_signing;
    },
  });
  try {
    const attribute = (body: unknown, init: RequestInit & { auth?: boolean } = { auth: true }) => svc.request('/v1/attribute', { ...init, json: body });
    const refused = async (name: string, res: Response, status: number, code: string): Promise<void> => {
      const body = await jsonOf(res);
      r.expect(name, res.status === status && errorCodeOf(body) === code && !('source_footer' in body), `→ ${res.status} ${String(errorCodeOf(body))}`);
    };

    await r.step('forged_token_refused', async () => refused('forged_token_refused', await attribute({ prompt: SMOKE_PROMPT, gross_revenue: '1' }, { headers: { authorization: `Bearer ${svc.token}x` } }), 401, 'unauthenticated'));
    await r.step('non_bearer_scheme_refused', async () => refused('non_bearer_scheme_refused', await attribute({ prompt: SMOKE_PROMPT, gross_revenue: '1' }, { headers: { authorization: `Basic ${Buffer.from(`u:${svc.token}`).toString('base64')}` } }), 401, 'unauthenticated'));
    await r.step('oversized_prompt_refused', async () => refused('oversized_prompt_refused', await attribute({ prompt: 'x'.repeat(2_049), gross_revenue: '1' }), 413, 'payload_too_large'));
    await r.step('oversized_output_refused', async () => refused('oversized_output_refused', await attribute({ prompt: SMOKE_PROMPT, output: 'Claim. '.repeat(2_400), gross_revenue: '1' }), 413, 'payload_too_large'));
    await r.step('oversized_body_refused', async () => refused('oversized_body_refused', await attribute({ prompt: SMOKE_PROMPT, output: 'y'.repeat(70_000), gross_revenue: '1' }), 413, 'payload_too_large'));
    await r.step('negative_revenue_refused', async () => refused('negative_revenue_refused', await attribute({ prompt: SMOKE_PROMPT, gross_revenue: '-0.01' }), 400, 'negative_revenue'));
    await r.step('malformed_revenue_refused', async () => refused('malformed_revenue_refused', await attribute({ prompt: SMOKE_PROMPT, gross_revenue: '1e9' }), 400, 'invalid_gross_revenue'));
    await r.step('unknown_field_refused', async () => refused('unknown_field_refused', await attribute({ prompt: SMOKE_PROMPT, gross_revenue: '1', admin: true }), 400, 'invalid_request'));
    await r.step('unknown_provider_refused', async () =>
      refused('unknown_provider_refused', await svc.request('/v1/provider/attribute', { auth: true, json: { provider_id: 'nope', messages: [{ role: 'user', content: SMOKE_PROMPT }], gross_revenue: '1' } }), 400, 'unknown_provider'),
    );
    await r.step('wrong_content_type_refused', async () =>
      refused('wrong_content_type_refused', await svc.request('/v1/attribute', { method: 'POST', auth: true, headers: { 'content-type': 'text/plain' }, body: 'prompt=x' }), 415, 'unsupported_media_type'),
    );
    await r.step('no_cors', async () => {
      const res = await svc.request('/v1/attribute', { method: 'OPTIONS', headers: { origin: 'https://evil.example', 'access-control-request-method': 'POST' } });
      const cors = [...res.headers.keys()].filter((k) => k.startsWith('access-control-'));
      r.expect('no_cors', cors.length === 0 && res.status >= 400, `OPTIONS → ${res.status}, cors headers [${cors.join(', ')}]`);
    });

    await r.step('forged_handle_detected', async () => {
      const res = await attribute({ prompt: SMOKE_PROMPT, gross_revenue: '3.00' });
      const response = (await jsonOf(res)) as unknown as AttributionResponse;
      const displayText = response.display.rendered_text;
      const genuine = passes(verifySourceFooter(response.source_footer, { displayText, trustStore }));
      const forged = structuredClone(response);
      const row = forged.source_footer.source_rows[0]!;
      row.verify = `attr://verify/source-footer/${'f'.repeat(32)}`;
      const forgedFooter = passes(verifySourceFooter(forged.source_footer, { displayText, trustStore }));
      const forgedResponse = verifyAttributionResponse(forged, { displayText }).production_display_ready;
      r.expect('forged_handle_detected', res.status === 200 && genuine && !forgedFooter && forgedResponse === false, `genuine footer verifies ${genuine}, forged footer verifies ${forgedFooter}, forged response display-ready ${forgedResponse}`);
      const stripped = response.display.answer_text;
      const copiedWithoutFooter = verifyAttributionResponse(response, { displayText: stripped }).production_display_ready;
      const unsigned = structuredClone(response.source_footer);
      unsigned.signature = null;
      unsigned.rendered_text = unsigned.rendered_text.split('\n').slice(0, -1).join('\n');
      const unsignedPasses = passes(verifySourceFooter(unsigned, { trustStore }));
      r.expect('unsigned_footer_not_relied_on', !unsignedPasses, `footer with its signature removed ready for public reliance ${unsignedPasses}`);
      r.expect('copied_text_without_footer_detected', copiedWithoutFooter === false, `copied answer without footer display-ready ${copiedWithoutFooter}`);
    });

    await r.step('rate_limit_flood', async () => {
      // Start from an empty window so the count of refusals is exact.
      await new Promise((res) => setTimeout(res, WINDOW_MS + 100));
      const flood = 3 * MAX_REQUESTS;
      const statuses = await Promise.all(Array.from({ length: flood }, () => svc.request('/v1/metrics', { auth: true }).then(async (res) => (await res.arrayBuffer(), res.status))));
      const limited = statuses.filter((s) => s === 429).length;
      await new Promise((res) => setTimeout(res, WINDOW_MS + 100));
      const metrics = await jsonOf(await svc.request('/v1/metrics', { auth: true }));
      r.expect(
        'rate_limit_flood',
        limited === flood - MAX_REQUESTS && metrics.rate_limited_requests_total === limited,
        `${flood} requests: ${limited} refused with 429 (expected ${flood - MAX_REQUESTS}); rate_limited_requests_total ${String(metrics.rate_limited_requests_total)}`,
      );
    });
  } finally {
    await svc.stop();
    await rm(keyDir, { recursive: true, force: true });
  }
  return r.report('security', svc.url, started);
}
