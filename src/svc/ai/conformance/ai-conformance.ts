/**
 * `GET /v1/conformance/ai`: which OpenAI-compatible features this gateway
 * supports, checked live by calling its own HTTP routes (through the full
 * stack: auth, validation, SSE framing, error mapping) with the caller's
 * credential. Calls reach the configured provider, so each check uses the
 * smallest request that proves the feature.
 */
import type { ModelCatalog } from '../providers/model-catalog.ts';

export interface SelfCall {
  (method: 'GET' | 'POST', url: string, body?: unknown, headers?: Record<string, string>): Promise<{ status: number; headers: Record<string, unknown>; body: string }>;
}

export interface ConformanceCheck {
  feature: string;
  supported: boolean;
  detail: string;
}

export interface ConformanceReport {
  checked_at: string;
  providers: number;
  passed: number;
  failed: number;
  checks: ConformanceCheck[];
}

type Check = () => Promise<[boolean, string]>;

function parse(text: string): Record<string, any> {
  try {
    return JSON.parse(text) as Record<string, any>;
  } catch {
    return {};
  }
}

export async function runAiConformance(call: SelfCall, catalog: ModelCatalog): Promise<ConformanceReport> {
  const chatModel = catalog.withCapability('chat')[0]?.model.id;
  const completionModel = catalog.withCapability('completions')[0]?.model.id;
  const embedModel = catalog.withCapability('embeddings')[0]?.model.id;
  const none = (what: string): [boolean, string] => [false, `no configured model serves ${what}`];
  const messages = [{ role: 'user', content: 'Reply with OK.' }];
  const checks: Array<[string, Check]> = [
    ['models.list', async () => {
      const r = await call('GET', '/v1/models');
      const ids = (parse(r.body).data ?? []).map((m: { id: string }) => m.id);
      return [r.status === 200 && ids.includes('auto'), `HTTP ${r.status}, ${ids.length} models`];
    }],
    ['chat.completions', async () => {
      if (!chatModel) return none('chat');
      const r = await call('POST', '/v1/chat/completions', { model: chatModel, messages, max_tokens: 8, svc: { cache: 'bypass' } });
      const b = parse(r.body);
      return [r.status === 200 && b.object === 'chat.completion' && Array.isArray(b.choices) && typeof b.svc?.work_unit_id === 'string', `HTTP ${r.status}`];
    }],
    ['chat.completions.stream+include_usage', async () => {
      if (!chatModel) return none('chat');
      const r = await call('POST', '/v1/chat/completions', { model: chatModel, messages, max_tokens: 8, stream: true, stream_options: { include_usage: true }, svc: { cache: 'bypass' } });
      const events = r.body.split('\n\n').filter((e) => e.startsWith('data: ')).map((e) => e.slice(6));
      const usageChunk = events.slice(0, -1).map(parse).find((c) => Array.isArray(c.choices) && c.choices.length === 0 && typeof c.usage?.total_tokens === 'number');
      const framed = String(r.headers['content-type'] ?? '').startsWith('text/event-stream') && events.at(-1) === '[DONE]';
      return [r.status === 200 && framed && usageChunk !== undefined, `HTTP ${r.status}, ${events.length} events`];
    }],
    ['completions', async () => {
      if (!completionModel) return none('completions');
      const r = await call('POST', '/v1/completions', { model: completionModel, prompt: 'Say OK.', max_tokens: 8, svc: { cache: 'bypass' } });
      return [r.status === 200 && typeof parse(r.body).choices?.[0]?.text === 'string', `HTTP ${r.status}`];
    }],
    ['embeddings.base64', async () => {
      if (!embedModel) return none('embeddings');
      const r = await call('POST', '/v1/embeddings', { model: embedModel, input: 'conformance', encoding_format: 'base64', svc: { cache: 'bypass' } });
      const e = parse(r.body).data?.[0]?.embedding;
      const ok = typeof e === 'string' && Buffer.from(e, 'base64').length % 4 === 0 && Buffer.from(e, 'base64').length > 0;
      return [r.status === 200 && ok, `HTTP ${r.status}`];
    }],
    ['errors.openai_shape', async () => {
      const r = await call('POST', '/v1/chat/completions', { model: 'svc-conformance-unknown-model', messages });
      const e = parse(r.body).error ?? {};
      const ok = typeof e.message === 'string' && typeof e.type === 'string' && 'param' in e && typeof e.code === 'string' && 'work_unit_id' in e && typeof e.retryable === 'boolean';
      return [ok && r.headers['x-should-retry'] === 'false', `HTTP ${r.status}, code ${e.code ?? 'none'}`];
    }],
    ['svc.metadata_on_request', async () => {
      const r = await call('GET', '/v1/models', undefined, { 'x-svc-metadata': 'true' });
      return [r.status === 200, 'X-SVC-Metadata: true or an svc extension adds the svc object'];
    }],
  ];
  const results: ConformanceCheck[] = [];
  for (const [feature, check] of checks) {
    try {
      const [supported, detail] = await check();
      results.push({ feature, supported, detail });
    } catch (err) {
      results.push({ feature, supported: false, detail: err instanceof Error ? err.name : 'error' });
    }
  }
  const passed = results.filter((r) => r.supported).length;
  return { checked_at: new Date().toISOString(), providers: catalog.providers.length, passed, failed: results.length - passed, checks: results };
}
