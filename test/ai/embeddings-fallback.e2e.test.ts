/**
 * Issue 10, defect 1: a provider's chat `fallback_model` must not break
 * embeddings. The fallback is resolved only for the APIs it serves, and a
 * fallback the request names is raised only when a fallback is needed.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { type MockOpenAI, startMockOpenAI } from '../fixtures/mock-openai/mock-openai-server.ts';

describe('embeddings with a chat fallback_model configured (the docs example config)', () => {
  let mock: MockOpenAI;
  let svc: TestServer;
  before(async () => {
    mock = await startMockOpenAI();
    const providers = [
      {
        name: 'mock',
        base_url: mock.url,
        models: [
          { id: 'small-1', size_class: 'small' },
          { id: 'large-1', size_class: 'large' },
          { id: 'emb-1', size_class: 'small', capabilities: ['embeddings'] },
        ],
        fallback_model: 'large-1',
      },
    ];
    svc = await startTestServer({ env: { SVC_PROVIDERS_JSON: JSON.stringify(providers) } });
  });
  after(async () => {
    await svc?.close();
    await mock?.close();
  });

  test('POST /v1/embeddings answers 200 with vectors and persists its plan', async () => {
    const r = await svc.call('POST', '/v1/embeddings', { key: KEYS.acmeWriter, body: { model: 'emb-1', input: ['hello'] } });
    const body = (await r.json()) as { data: Array<{ embedding: number[] }> };
    assert.equal(r.status, 200, JSON.stringify(body));
    assert.ok(body.data[0]!.embedding.length > 0);
    const wu = r.headers.get('x-svc-work-unit-id')!;
    const plans = (await (await svc.call('GET', `/v1/plans?work_unit_id=${wu}`)).json()) as { plans: Array<{ plan_id: string }> };
    assert.equal(plans.plans.length, 1);
  });

  test('chat still gets the provider fallback when its answer fails the verifier', async () => {
    mock.setBehavior('small-1', 'empty');
    try {
      const r = await svc.call('POST', '/v1/chat/completions', { key: KEYS.acmeWriter, body: { model: 'small-1', messages: [{ role: 'user', content: 'fallback please' }], svc: {} } });
      const body = (await r.json()) as { svc: { fallback_used: boolean; route: string } };
      assert.equal(r.status, 200, JSON.stringify(body));
      assert.deepEqual([body.svc.fallback_used, body.svc.route], [true, 'mock/large-1']);
    } finally {
      mock.setBehavior('small-1', 'ok');
    }
  });

  test('a request-named fallback that cannot serve embeddings is raised only when a fallback is needed', async () => {
    const ok = await svc.call('POST', '/v1/embeddings', { key: KEYS.acmeWriter, body: { model: 'emb-1', input: ['named fallback'], svc: { fallback_model: 'large-1' } } });
    assert.equal(ok.status, 200, await ok.clone().text());
    mock.setBehavior('emb-1', 'status:503');
    try {
      const r = await svc.call('POST', '/v1/embeddings', { key: KEYS.acmeWriter, body: { model: 'emb-1', input: ['named fallback, upstream down'], svc: { fallback_model: 'large-1' } } });
      const body = (await r.json()) as { error: { code: string; message: string } };
      assert.equal(r.status, 502);
      assert.equal(body.error.code, 'model_route_failed');
      assert.match(body.error.message, /fallback model 'large-1'/);
    } finally {
      mock.setBehavior('emb-1', 'ok');
    }
  });
});
