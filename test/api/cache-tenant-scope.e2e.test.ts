/**
 * Issue 10, defect 11: exact-cache keys are scoped by tenant. Tenant B
 * storing a `ck_` key tenant A stored first works in B's namespace; no
 * response (status, code, message, ledger) tells B that A holds the key.
 * The semantic cache is partitioned the same way.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { exactCacheKey } from '../../src/svc/cache/exact/exact-cache-key.ts';
import { engines } from '../helpers/engines.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

type Json = Record<string, any>;

for (const engine of engines()) {
  describe(`exact-cache keys per tenant over HTTP (${engine.name})`, { skip: engine.skip }, () => {
    let svc: TestServer;
    before(async () => {
      svc = await startTestServer({ engine: engine.name });
    });
    after(async () => svc?.close());

    const store = (apiKey: string, key: string, text: string) =>
      svc.call('POST', '/v1/cache/store', { key: apiKey, body: { key, value: { text }, verification: { type: 'non_empty_text' }, ttl_seconds: 600 } });
    const lookup = async (apiKey: string, key: string) => (await svc.call('POST', '/v1/cache/exact/lookup', { key: apiKey, body: { key } })).json() as Promise<Json>;

    test('tenant B stores the key tenant A stored first: 200 in its own namespace, each tenant reads its own value', async () => {
      const key = exactCacheKey({ tenant: 'shared-key-test', route: 'manual', model: 'none', request: { q: 'same key' } });
      const a = await store(KEYS.acmeWriter, key, 'acme answer');
      assert.equal(a.status, 200, await a.clone().text());
      const b = await store(KEYS.globexWriter, key, 'globex answer');
      const bBody = (await b.json()) as Json;
      assert.equal(b.status, 200, JSON.stringify(bBody));
      assert.deepEqual([bBody.key, bBody.tenant], [key, 'globex']);
      assert.deepEqual([(await lookup(KEYS.acmeWriter, key)).value, (await lookup(KEYS.globexWriter, key)).value], [{ text: 'acme answer' }, { text: 'globex answer' }]);
    });

    test("a key only another tenant holds looks exactly like a key nobody holds", async () => {
      const held = exactCacheKey({ tenant: 'x', route: 'manual', model: 'none', request: { q: 'held by acme only' } });
      const nobody = exactCacheKey({ tenant: 'x', route: 'manual', model: 'none', request: { q: 'held by nobody' } });
      assert.equal((await store(KEYS.acmeWriter, held, 'acme only')).status, 200);
      const asHeld = await lookup(KEYS.globexWriter, held);
      const asNobody = await lookup(KEYS.globexWriter, nobody);
      assert.deepEqual({ ...asHeld, key: null }, { ...asNobody, key: null });
      assert.deepEqual(asHeld, { hit: false, key: held, reason: 'absent' });
      const denied = await svc.app.store.ledger.query({ tenant: 'globex', eventTypes: ['cache.cross_tenant.denied'], limit: 100 });
      assert.equal(denied.length, 0, 'using one\'s own namespace is not a cross-tenant attempt');
    });

    test('the semantic cache is partitioned by tenant: the same entry stored by both tenants is served to each from its own', async () => {
      const entry = (text: string) => ({ domain: 'faq', query: 'How long is the refund window?', source_fingerprints: ['doc:refunds@v1'], policy_id: 'pb_x', value: { text }, verification: { type: 'non_empty_text' } });
      assert.equal((await svc.call('POST', '/v1/cache/semantic/store', { key: KEYS.acmeWriter, body: entry('acme: 30 days') })).status, 200);
      const q = { domain: 'faq', query: 'How long is the refund window?', source_fingerprints: ['doc:refunds@v1'], policy_id: 'pb_x', freshness: { max_age_seconds: 600 } };
      const before = (await (await svc.call('POST', '/v1/cache/semantic/lookup', { key: KEYS.globexWriter, body: q })).json()) as Json;
      assert.equal(before.hit, false);
      assert.equal((await svc.call('POST', '/v1/cache/semantic/store', { key: KEYS.globexWriter, body: entry('globex: 14 days') })).status, 200);
      const acme = (await (await svc.call('POST', '/v1/cache/semantic/lookup', { key: KEYS.acmeWriter, body: q })).json()) as Json;
      const globex = (await (await svc.call('POST', '/v1/cache/semantic/lookup', { key: KEYS.globexWriter, body: q })).json()) as Json;
      assert.deepEqual([acme.hit, acme.value], [true, { text: 'acme: 30 days' }]);
      assert.deepEqual([globex.hit, globex.value], [true, { text: 'globex: 14 days' }]);
    });
  });
}
