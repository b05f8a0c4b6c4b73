/**
 * Embeddings mode (docs/semantic-cache.md): with `semantic_cache_embedding_model`
 * on a provider, the semantic cache's vectors come from that provider's
 * /embeddings route (the mock OpenAI-compatible upstream here), for the
 * normalised query, cached in process; the alignment's refusals still run; entries
 * are partitioned by embedder; an upstream that fails makes a miss, not a
 * failed request.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type MockOpenAI, startMockOpenAI } from '../fixtures/mock-openai/mock-openai-server.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

type Json = Record<string, any>;

describe('semantic cache in embeddings mode', () => {
  let mock: MockOpenAI;
  let s: TestServer;
  before(async () => {
    mock = await startMockOpenAI();
    const providers = [{ name: 'mock', base_url: mock.url, semantic_cache_embedding_model: 'emb-1', models: [{ id: 'm-small', size_class: 'small' }, { id: 'emb-1', size_class: 'small', capabilities: ['embeddings'] }] }];
    s = await startTestServer({ env: { SVC_PROVIDERS_JSON: JSON.stringify(providers) } });
  });
  after(async () => {
    await s?.close();
    await mock?.close();
  });

  const body = (query: string) => ({ domain: 'faq', query, source_fingerprints: ['doc:1@v1'], policy_id: 'pb_1' });
  const store = (query: string) => s.call('POST', '/v1/cache/semantic/store', { key: KEYS.acmeWriter, body: { ...body(query), value: { text: 'answer' }, verification: { type: 'non_empty_text' } } });
  const lookup = async (query: string) => (await (await s.call('POST', '/v1/cache/semantic/lookup', { key: KEYS.acmeWriter, body: { ...body(query), freshness: { max_age_seconds: 600 } } })).json()) as Json;
  const embeddingCalls = () => mock.calls.filter((c) => c.path === '/embeddings');

  it('vectors come from the provider for the normalised query, are cached, and a hit names the provider operating point', async () => {
    const before = embeddingCalls().length;
    assert.equal((await store('What is the refund window?')).status, 200);
    const stored = embeddingCalls().slice(before);
    assert.equal(stored.length, 1);
    assert.equal(stored[0]!.body.model, 'emb-1');
    assert.equal(stored[0]!.body.input, 'what is the refund window', 'the normalised query is embedded');
    const hit = await lookup("what's the refund window");
    assert.equal(hit.hit, true);
    assert.deepEqual(hit.operating_point, { source: 'default', embedder: 'provider:mock/emb-1', threshold: 0.92 });
    assert.equal(embeddingCalls().length, before + 1, 'the same normalised text is embedded once (cached)');
    const entries = ((await (await s.call('POST', '/v1/ledger/query', { body: { event_types: ['ai.semantic_cache.accepted'], limit: 10 } })).json()) as Json).events as Json[];
    assert.equal(entries.at(-1)!.payload.embedder, 'provider:mock/emb-1');
  });

  it('the alignment still refuses what the vectors might accept, and an upstream failure is a miss', async () => {
    const negated = await lookup('What is not the refund window?');
    assert.equal(negated.hit, false);
    assert.equal((await lookup('What is the refund window for digital goods?')).hit, false, 'an added content word');
    mock.setBehavior('emb-1', 'status:500');
    try {
      const r = await lookup('A question never embedded before');
      assert.deepEqual([r.hit, r.reason], [false, 'embedder_unavailable']);
    } finally {
      mock.setBehavior('emb-1', 'ok');
    }
  });
});
