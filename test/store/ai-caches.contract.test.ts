import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { ExactCacheEntry } from '../../src/svc/cache/exact/exact-cache-store.ts';
import type { SemanticCacheEntry } from '../../src/svc/cache/semantic/semantic-cache-store.ts';
import type { Store } from '../../src/svc/store/store.ts';
import { engines } from '../helpers/engines.ts';
import { engineStoreFixture } from '../helpers/engine-store.ts';

const future = new Date(Date.now() + 3_600_000).toISOString();
const entry = (key: string, tenant: string, value: unknown): ExactCacheEntry => ({
  key, tenant, value, verification: { type: 'non_empty_text' }, verifier: 'non_empty_text@1', origin: 'client', created_at: new Date().toISOString(), expires_at: future,
});
const semantic = (id: string, tenant: string, domain: string, created: string, lookupKey: string | null = null): SemanticCacheEntry => ({
  id, tenant, domain, embedder: 'lexical-ngram@1/512', normalised_query: 'q', lookup_key: lookupKey, embedding: [0.25, -0.5, 1e-9], source_fingerprints: ['a', 'b'], policy_id: 'pb_1',
  value: { text: 'v' }, verification: { type: 'non_empty_text' }, verifier: 'non_empty_text@1', created_at: created, expires_at: future,
});

for (const engine of engines()) {
  describe(`AI cache storage contract on ${engine.name}`, { skip: engine.skip }, () => {
    const fixture = engineStoreFixture(engine.name);
    let store: Store;
    before(() => {
      store = fixture.store;
    });

    test('an exact entry round-trips and is replaced by its own tenant', async () => {
      await store.cacheEntries.put(entry('ck_1', 'acme', { text: 'one' }));
      assert.deepEqual((await store.cacheEntries.get('acme', 'ck_1'))?.value, { text: 'one' });
      await store.cacheEntries.put(entry('ck_1', 'acme', { text: 'two' }));
      assert.deepEqual((await store.cacheEntries.get('acme', 'ck_1'))?.value, { text: 'two' });
    });

    test('keys are per tenant: another tenant storing the same key gets its own entry and never touches the first', async () => {
      assert.equal(await store.cacheEntries.get('globex', 'ck_1'), undefined);
      await store.cacheEntries.put(entry('ck_1', 'globex', { text: 'globex own' }));
      const acme = await store.cacheEntries.get('acme', 'ck_1');
      const globex = await store.cacheEntries.get('globex', 'ck_1');
      assert.deepEqual([acme?.tenant, acme?.value], ['acme', { text: 'two' }]);
      assert.deepEqual([globex?.tenant, globex?.value], ['globex', { text: 'globex own' }]);
      await store.cacheEntries.delete('globex', 'ck_1');
      assert.equal(await store.cacheEntries.get('globex', 'ck_1'), undefined);
      assert.ok(await store.cacheEntries.get('acme', 'ck_1'), 'deleting in one tenant leaves the other');
    });

    test('expired exact entries are deleted', async () => {
      await store.cacheEntries.put({ ...entry('ck_old', 'acme', { text: 'x' }), expires_at: '2000-01-01T00:00:00.000Z' });
      assert.equal(await store.cacheEntries.deleteExpired(new Date().toISOString(), 1000), 1);
      assert.equal(await store.cacheEntries.get('acme', 'ck_old'), undefined);
    });

    test('semantic candidates come from one partition only, newest first, vectors exact', async () => {
      await store.semanticCache.put(semantic('ck_s1', 'acme', 'faq', '2026-01-01T00:00:00.000Z'));
      await store.semanticCache.put(semantic('ck_s2', 'acme', 'faq', '2026-01-02T00:00:00.000Z'));
      await store.semanticCache.put(semantic('ck_s3', 'globex', 'faq', '2026-01-03T00:00:00.000Z'));
      await store.semanticCache.put(semantic('ck_s4', 'acme', 'other', '2026-01-03T00:00:00.000Z'));
      const got = await store.semanticCache.candidates({ tenant: 'acme', domain: 'faq', embedder: 'lexical-ngram@1/512' }, new Date().toISOString(), 10);
      assert.deepEqual(got.map((e) => e.id), ['ck_s2', 'ck_s1']);
      assert.deepEqual(got[0]!.embedding, [0.25, -0.5, 1e-9]);
      assert.deepEqual(got[0]!.source_fingerprints, ['a', 'b']);
    });

    test('semantic candidates by lookup key: every unexpired entry of the partition with that key, however old, newest first', async () => {
      const partition = { tenant: 'acme', domain: 'keys', embedder: 'lexical-ngram@1/512' };
      await store.semanticCache.put(semantic('ck_k1', 'acme', 'keys', '2025-01-01T00:00:00.000Z', 'key-a'));
      await store.semanticCache.put(semantic('ck_k2', 'acme', 'keys', '2025-01-02T00:00:00.000Z', 'key-a'));
      await store.semanticCache.put({ ...semantic('ck_k3', 'acme', 'keys', '2025-01-03T00:00:00.000Z', 'key-a'), expires_at: '2000-01-01T00:00:00.000Z' });
      await store.semanticCache.put(semantic('ck_k4', 'acme', 'keys', '2025-01-04T00:00:00.000Z', 'key-b'));
      await store.semanticCache.put(semantic('ck_k5', 'globex', 'keys', '2025-01-05T00:00:00.000Z', 'key-a'));
      const got = await store.semanticCache.candidatesByKey(partition, 'key-a', new Date().toISOString(), 10);
      assert.deepEqual(got.map((e) => [e.id, e.lookup_key]), [['ck_k2', 'key-a'], ['ck_k1', 'key-a']]);
      assert.deepEqual((await store.semanticCache.candidatesByKey(partition, 'key-a', new Date().toISOString(), 1)).map((e) => e.id), ['ck_k2']);
      assert.deepEqual((await store.semanticCache.candidatesByKey({ ...partition, tenant: 'globex' }, 'key-a', new Date().toISOString(), 10)).map((e) => e.id), ['ck_k5']);
      assert.equal(await store.semanticCache.clear('acme', 'keys'), 4);
      assert.equal(await store.semanticCache.clear('globex', 'keys'), 1);
    });

    test('semantic candidates by several lookup keys (a query\'s synonym variants): any of the keys, newest first, one limit in all', async () => {
      const partition = { tenant: 'acme', domain: 'syn', embedder: 'lexical-ngram@1/512' };
      await store.semanticCache.put(semantic('ck_m1', 'acme', 'syn', '2025-01-01T00:00:00.000Z', 'key-a'));
      await store.semanticCache.put(semantic('ck_m2', 'acme', 'syn', '2025-01-02T00:00:00.000Z', 'key-b'));
      await store.semanticCache.put({ ...semantic('ck_m3', 'acme', 'syn', '2025-01-03T00:00:00.000Z', 'key-b'), expires_at: '2000-01-01T00:00:00.000Z' });
      await store.semanticCache.put(semantic('ck_m4', 'acme', 'syn', '2025-01-04T00:00:00.000Z', 'key-c'));
      await store.semanticCache.put(semantic('ck_m5', 'acme', 'syn', '2025-01-05T00:00:00.000Z', 'key-d'));
      await store.semanticCache.put(semantic('ck_m6', 'globex', 'syn', '2025-01-06T00:00:00.000Z', 'key-a'));
      const now = new Date().toISOString();
      const got = await store.semanticCache.candidatesByKeys(partition, ['key-a', 'key-b', 'key-c', 'key-a'], now, 10);
      assert.deepEqual(got.map((e) => [e.id, e.lookup_key]), [['ck_m4', 'key-c'], ['ck_m2', 'key-b'], ['ck_m1', 'key-a']]);
      assert.deepEqual((await store.semanticCache.candidatesByKeys(partition, ['key-a', 'key-b', 'key-c'], now, 2)).map((e) => e.id), ['ck_m4', 'ck_m2']);
      assert.deepEqual((await store.semanticCache.candidatesByKeys({ ...partition, tenant: 'globex' }, ['key-a', 'key-b'], now, 10)).map((e) => e.id), ['ck_m6']);
      assert.deepEqual(await store.semanticCache.candidatesByKeys(partition, [], now, 10), []);
      assert.equal(await store.semanticCache.clear('acme', 'syn'), 5);
      assert.equal(await store.semanticCache.clear('globex', 'syn'), 1);
    });

    test('clearing the semantic cache removes one tenant (optionally one domain)', async () => {
      assert.equal(await store.semanticCache.clear('acme', 'other'), 1);
      assert.equal(await store.semanticCache.clear('acme'), 2);
      const globex = await store.semanticCache.candidates({ tenant: 'globex', domain: 'faq', embedder: 'lexical-ngram@1/512' }, new Date().toISOString(), 10);
      assert.equal(globex.length, 1);
    });

    test('clearing every tenant removes all semantic entries (the rollback switch without a tenant)', async () => {
      await store.semanticCache.put(semantic('sc_all_1', 'acme', 'faq', new Date().toISOString()));
      assert.equal(await store.semanticCache.clearAll(), 2);
      const left = await store.semanticCache.candidates({ tenant: 'globex', domain: 'faq', embedder: 'lexical-ngram@1/512' }, new Date().toISOString(), 10);
      assert.equal(left.length, 0);
    });
  });
}
