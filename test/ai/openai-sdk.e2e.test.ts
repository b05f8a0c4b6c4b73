import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { exactCacheKey } from '../../src/svc/cache/exact/exact-cache-key.ts';
import { engines } from '../helpers/engines.ts';
import { ADMIN_KEY, KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { type MockOpenAI, startMockOpenAI } from '../fixtures/mock-openai/mock-openai-server.ts';

function providersJson(url: string): string {
  return JSON.stringify([
    {
      name: 'mock',
      base_url: url,
      api_key_env: 'MOCK_UPSTREAM_KEY',
      models: [
        { id: 'mock-small', size_class: 'small', capabilities: ['chat', 'completions'] },
        { id: 'mock-large', size_class: 'large', capabilities: ['chat', 'completions'] },
        { id: 'mock-flaky', size_class: 'small' },
        { id: 'mock-embed', size_class: 'small', capabilities: ['embeddings'] },
      ],
      timeouts: { request_ms: 3000 },
    },
  ]);
}

for (const engine of engines()) {
  describe(`AI gateway through the real openai SDK (${engine.name})`, { skip: engine.skip }, () => {
    let mock: MockOpenAI;
    let svc: TestServer;
    let acme: OpenAI;
    before(async () => {
      mock = await startMockOpenAI({ models: ['mock-small'] });
      svc = await startTestServer({ engine: engine.name, env: { SVC_PROVIDERS_JSON: providersJson(mock.url), MOCK_UPSTREAM_KEY: 'sk-upstream-test' } });
      acme = new OpenAI({ apiKey: KEYS.acmeWriter, baseURL: `${svc.url}/v1`, maxRetries: 0 });
    });
    after(async () => {
      await svc?.close();
      await mock?.close();
    });

    test('chat completions answer with X-SVC headers, and the svc object only when asked', async () => {
      const { data, response } = await acme.chat.completions.create({ model: 'mock-small', messages: [{ role: 'user', content: 'hello sdk' }] }).withResponse();
      assert.match(data.choices[0]!.message.content ?? '', /mock-small answers/);
      const wu = response.headers.get('x-svc-work-unit-id');
      assert.match(wu ?? '', /^wu_/);
      assert.match(response.headers.get('x-svc-manifest-id') ?? '', /^mf_/);
      assert.equal(response.headers.get('x-svc-route'), 'mock/mock-small');
      assert.equal('svc' in data, false);
      // Committed before the response was sent: readable at once.
      const manifest = await svc.app.store.aiManifests.byWorkUnit(wu!);
      assert.equal(manifest?.status, 'completed');
      assert.equal(manifest?.result.fallback_used, false);
      const withMeta = await acme.chat.completions.create({ model: 'mock-small', messages: [{ role: 'user', content: 'hello sdk' }] }, { headers: { 'X-SVC-Metadata': 'true' } });
      const meta = (withMeta as unknown as { svc: Record<string, unknown> }).svc;
      assert.equal(meta.cache, 'exact_hit');
      assert.equal(meta.verifier, 'chat_completion@1');
      assert.equal(withMeta.usage?.total_tokens, 0);
    });

    test('streaming with include_usage ends with a usage chunk that has no choices', async () => {
      const stream = await acme.chat.completions.create({ model: 'mock-small', messages: [{ role: 'user', content: 'stream via sdk' }], stream: true, stream_options: { include_usage: true } });
      const chunks = [];
      for await (const c of stream) chunks.push(c);
      const last = chunks.at(-1)!;
      assert.deepEqual(last.choices, []);
      assert.ok((last.usage?.total_tokens ?? 0) > 0);
      assert.match(chunks.map((c) => c.choices[0]?.delta.content ?? '').join(''), /mock-small answers/);
    });

    test('when a stream has sent [DONE], its work unit, plan, manifest and ledger events are already committed', async () => {
      const response = await svc.call('POST', '/v1/chat/completions', { key: KEYS.acmeWriter, body: { model: 'mock-small', messages: [{ role: 'user', content: 'durable stream over http' }], stream: true } });
      const wu = response.headers.get('x-svc-work-unit-id')!;
      const text = await response.text();
      assert.ok(text.endsWith('data: [DONE]\n\n'));
      // No waiting: what was acknowledged is in the store.
      const manifest = await svc.app.store.aiManifests.byWorkUnit(wu);
      assert.equal(manifest?.status, 'completed');
      assert.equal((await svc.app.store.workUnits.get(wu))?.state, 'executed');
      assert.equal((await svc.app.store.plans.get(manifest!.plan_id))?.work_unit_id, wu);
      const mine = (await svc.app.store.ledger.query({ tenant: 'acme', limit: 10_000 })).filter((e) => e.work_unit_id === wu);
      assert.deepEqual(mine.map((e) => e.type).sort(), ['manifest.written', 'plan.created']);
      // The compute manifest's event carries the request's summary (what ai.request.completed held before decision 137).
      const written = JSON.parse(mine.find((e) => e.type === 'manifest.written')!.payload) as { ai: Record<string, unknown> };
      assert.deepEqual([written.ai.kind, written.ai.cache, written.ai.verifier, written.ai.route], ['ai_chat_completion', 'miss', 'chat_completion@1', 'mock/mock-small']);
    });

    test('text completions and the models list work', async () => {
      const c = await acme.completions.create({ model: 'mock-small', prompt: 'complete me' });
      assert.match(c.choices[0]!.text, /answers/);
      const models = [];
      for await (const m of acme.models.list()) models.push(m.id);
      assert.ok(models.includes('auto') && models.includes('mock-small'));
    });

    test('embeddings with the SDK default base64 encoding decode to the upstream floats', async () => {
      const e = await acme.embeddings.create({ model: 'mock-embed', input: ['one', 'two'] });
      assert.equal(e.data.length, 2);
      const upstream = mock.calls.filter((c) => c.path === '/embeddings').at(-1)!;
      assert.equal(upstream.body.encoding_format, 'float', 'the gateway asks the provider for floats');
      assert.ok(e.data[0]!.embedding.every((x) => typeof x === 'number'));
      assert.equal(e.data[0]!.embedding.length, 8);
    });

    test('errors are typed SDK errors with the spec fields; deterministic ones say x-should-retry: false', async () => {
      const unknown = await acme.chat.completions.create({ model: 'no-such-model', messages: [{ role: 'user', content: 'x' }] }).catch((e: unknown) => e);
      assert.ok(unknown instanceof OpenAI.APIError);
      const body = (unknown as InstanceType<typeof OpenAI.APIError>).error as Record<string, unknown>;
      assert.equal(body.code, 'model_route_failed');
      assert.equal(body.param, 'model');
      assert.equal(body.retryable, false);
      assert.match(String(body.work_unit_id), /^wu_/);
      assert.equal((unknown as InstanceType<typeof OpenAI.APIError>).headers?.get('x-should-retry'), 'false');
      const foreign = await acme.chat.completions.create({ model: 'mock-small', messages: [{ role: 'user', content: 'x' }], svc: { tenant: 'globex' } } as never).catch((e: unknown) => e);
      assert.ok(foreign instanceof OpenAI.PermissionDeniedError);
    });

    test('an upstream error is never cached', async () => {
      mock.setBehavior('mock-flaky', 'status:500');
      const before = mock.calls.length;
      for (let i = 0; i < 2; i++) {
        const err = await acme.chat.completions.create({ model: 'mock-flaky', messages: [{ role: 'user', content: 'fails' }] }).catch((e: unknown) => e);
        assert.ok(err instanceof OpenAI.APIError);
      }
      assert.equal(mock.calls.length, before + 2);
      mock.setBehavior('mock-flaky', 'ok');
    });

    test('cache store rejects verifier_passed; another tenant misses the key and stores it in its own namespace', async () => {
      const key = exactCacheKey({ tenant: 'acme', route: 'manual', model: 'none', request: { q: engine.name } });
      const value = { text: 'a cached answer' };
      const rejected = await svc.call('POST', '/v1/cache/store', { key: KEYS.acmeWriter, body: { key, value, verification: { type: 'non_empty_text' }, verifier_passed: true } });
      assert.equal(rejected.status, 400);
      const stored = await svc.call('POST', '/v1/cache/store', { key: KEYS.acmeWriter, body: { key, value, verification: { type: 'non_empty_text' }, ttl_seconds: 60 } });
      assert.equal(stored.status, 200);
      const own = (await (await svc.call('POST', '/v1/cache/exact/lookup', { key: KEYS.acmeWriter, body: { key } })).json()) as Record<string, any>;
      assert.deepEqual([own.hit, own.value], [true, value]);
      const cross = await svc.call('POST', '/v1/cache/exact/lookup', { key: KEYS.globexWriter, body: { key } });
      assert.equal(cross.status, 200);
      assert.deepEqual(await cross.json(), { hit: false, key, reason: 'absent' });
      const own2 = await svc.call('POST', '/v1/cache/store', { key: KEYS.globexWriter, body: { key, value: { text: 'globex answer' }, verification: { type: 'non_empty_text' } } });
      assert.equal(own2.status, 200);
      const named = await svc.call('POST', '/v1/cache/exact/lookup', { key: KEYS.globexWriter, body: { key, tenant: 'acme' } });
      assert.equal(((await named.json()) as any).error.code, 'cache_permission_denied');
      const stillOwn = (await (await svc.call('POST', '/v1/cache/exact/lookup', { key: KEYS.acmeWriter, body: { key } })).json()) as Record<string, any>;
      assert.deepEqual(stillOwn.value, value);
    });

    test('semantic lookup over HTTP: paraphrase hits, near-topic and negation miss, another tenant sees nothing', async () => {
      const entry = { domain: 'faq', query: 'How do I rotate my API key?', source_fingerprints: ['doc:keys@v1'], policy_id: 'pb_x', value: { text: 'Use svc keys rotate.' }, verification: { type: 'non_empty_text' } };
      assert.equal((await svc.call('POST', '/v1/cache/semantic/store', { key: KEYS.acmeWriter, body: entry })).status, 200);
      const q = (query: string, key: string) => svc.call('POST', '/v1/cache/semantic/lookup', { key, body: { domain: 'faq', query, source_fingerprints: ['doc:keys@v1'], policy_id: 'pb_x', freshness: { max_age_seconds: 600 } } }).then((r) => r.json() as Promise<Record<string, any>>);
      assert.equal((await q('how do I rotate my API key', KEYS.acmeWriter)).hit, true);
      const reworded = await q('How can I rotate my API key?', KEYS.acmeWriter);
      assert.equal(reworded.hit, true, 'a function word swapped (docs/semantic-cache.md)');
      assert.equal(reworded.operating_point.source, 'default');
      assert.equal((await q('How do I rotate my SSH key?', KEYS.acmeWriter)).hit, false, 'another entity');
      assert.equal((await q('How do I not rotate my API key?', KEYS.acmeWriter)).hit, false);
      assert.equal((await q('how do I rotate my API key', KEYS.globexWriter)).hit, false);
    });

    test('GET /v1/conformance/ai checks every feature live and all pass against the mock', async () => {
      const r = await svc.call('GET', '/v1/conformance/ai', { key: ADMIN_KEY });
      assert.equal(r.status, 200);
      const report = (await r.json()) as Record<string, any>;
      assert.deepEqual(report.checks.filter((c: { supported: boolean }) => !c.supported), []);
      assert.ok(report.passed >= 6);
    });
  });
}

describe('AI gateway without providers', () => {
  test('answers model_route_failed with a message naming SVC_PROVIDERS_JSON', async () => {
    const svc = await startTestServer();
    try {
      const r = await svc.call('POST', '/v1/chat/completions', { key: KEYS.acmeWriter, body: { model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'x' }] } });
      const body = (await r.json()) as Record<string, any>;
      assert.equal(body.error.code, 'model_route_failed');
      assert.match(body.error.message, /SVC_PROVIDERS_JSON/);
      assert.equal(r.headers.get('x-should-retry'), 'false');
    } finally {
      await svc.close();
    }
  });
});
