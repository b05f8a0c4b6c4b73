/**
 * The AI gateway under the rollback switches (POST /v1/admin/switches):
 * `disable_model_router`, `route_to_baseline_provider` and
 * `clear_semantic_cache`, on SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, test } from 'node:test';
import { engines } from '../helpers/engines.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { type MockOpenAI, startMockOpenAI } from '../fixtures/mock-openai/mock-openai-server.ts';

/** Two providers over one mock: `base` (the baseline, configured first) and `other`. */
function providersJson(url: string): string {
  return JSON.stringify([
    { name: 'base', base_url: url, models: [{ id: 'base-small', size_class: 'small' }, { id: 'base-large', size_class: 'large' }] },
    { name: 'other', base_url: url, models: [{ id: 'other-small', size_class: 'small' }] },
  ]);
}

const CLASSIFY = 'Classify the sentiment of this review: great product';

for (const engine of engines()) {
  describe(`AI gateway rollback switches (${engine.name})`, { skip: engine.skip }, () => {
    let mock: MockOpenAI;
    let svc: TestServer;
    const flip = async (body: Record<string, unknown>) => {
      const r = await svc.call('POST', '/v1/admin/switches', { body });
      assert.equal(r.status, 200, await r.clone().text());
      return (await r.json()) as { switches: Record<string, unknown>; effect?: Record<string, unknown> };
    };
    const chat = async (model: string, content: string) => {
      const r = await svc.call('POST', '/v1/chat/completions', { key: KEYS.acmeWriter, body: { model, messages: [{ role: 'user', content }] } });
      assert.equal(r.status, 200);
      await r.json();
      return { route: r.headers.get('x-svc-route'), workUnit: r.headers.get('x-svc-work-unit-id')! };
    };
    before(async () => {
      mock = await startMockOpenAI();
      svc = await startTestServer({ engine: engine.name, env: { SVC_PROVIDERS_JSON: providersJson(mock.url) } });
    });
    afterEach(async () => {
      await flip({ switch: 'disable_model_router', enabled: false });
      await flip({ switch: 'route_to_baseline_provider', enabled: false });
    });
    after(async () => {
      await svc?.close();
      await mock?.close();
    });

    test('with the model router disabled, auto is not classified: it goes to the large model, and the manifest says why', async () => {
      assert.equal((await chat('auto', `${CLASSIFY} (router on)`)).route, 'base/base-small');
      await flip({ switch: 'disable_model_router', enabled: true });
      const off = await chat('auto', `${CLASSIFY} (router off)`);
      assert.equal(off.route, 'base/base-large');
      const manifest = await svc.app.store.aiManifests.byWorkUnit(off.workUnit);
      assert.deepEqual([manifest?.routing.task_class, manifest?.routing.switched_by], [null, ['model_router_disabled']]);
    });

    test('route_to_baseline_provider sends a model of another provider to the baseline provider', async () => {
      assert.equal((await chat('other-small', 'which provider? (before)')).route, 'other/other-small');
      await flip({ switch: 'route_to_baseline_provider', enabled: true });
      const moved = await chat('other-small', 'which provider? (after)');
      assert.equal(moved.route, 'base/base-small');
      assert.equal(mock.calls.at(-1)?.model, 'base-small');
      const manifest = await svc.app.store.aiManifests.byWorkUnit(moved.workUnit);
      assert.deepEqual(manifest?.routing.switched_by, ['route_to_baseline_provider']);
    });

    test('clear_semantic_cache clears one tenant\'s semantic entries, or every tenant\'s', async () => {
      const entry = { domain: 'faq', query: 'How do I rotate my API key?', source_fingerprints: ['doc:keys@v1'], policy_id: 'pb_x', value: { text: 'Use svc keys rotate.' }, verification: { type: 'non_empty_text' } };
      const lookup = async (key: string) =>
        ((await (await svc.call('POST', '/v1/cache/semantic/lookup', { key, body: { domain: 'faq', query: entry.query, source_fingerprints: entry.source_fingerprints, policy_id: 'pb_x', freshness: { max_age_seconds: 600 } } })).json()) as { hit: boolean }).hit;
      for (const key of [KEYS.acmeWriter, KEYS.globexWriter]) assert.equal((await svc.call('POST', '/v1/cache/semantic/store', { key, body: entry })).status, 200);
      assert.deepEqual([await lookup(KEYS.acmeWriter), await lookup(KEYS.globexWriter)], [true, true]);

      const one = await flip({ switch: 'clear_semantic_cache', tenant: 'acme' });
      assert.deepEqual(one.effect, { cleared: 1, tenant: 'acme' });
      assert.deepEqual([await lookup(KEYS.acmeWriter), await lookup(KEYS.globexWriter)], [false, true]);

      const all = await flip({ switch: 'clear_semantic_cache' });
      assert.deepEqual(all.effect, { cleared: 1, tenant: null });
      assert.equal(await lookup(KEYS.globexWriter), false);
    });
  });
}
