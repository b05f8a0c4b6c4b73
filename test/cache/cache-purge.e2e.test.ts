/**
 * The periodic purge of expired cache entries runs in a real svc (decision
 * 184): with a short `cache.purge_interval_seconds`, expired exact and
 * semantic entries of two tenants disappear without any lookup,
 * `svc_cache_entries_purged_total{cache}` counts them, and entries stored
 * through the API (unexpired) are still served.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { exactCacheKey } from '../../src/svc/cache/exact/exact-cache-key.ts';
import { engines } from '../helpers/engines.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

type Json = Record<string, any>;
const LONG_AGO = '2001-01-01T00:00:00.000Z';

function purgedCounts(metricsText: string): { exact: number; semantic: number } {
  const value = (cache: string) => Number(new RegExp(`^svc_cache_entries_purged_total\\{cache="${cache}"\\} (\\d+)$`, 'm').exec(metricsText)?.[1] ?? NaN);
  return { exact: value('exact'), semantic: value('semantic') };
}

for (const engine of engines()) {
  describe(`the cache purge in a running svc (${engine.name})`, { skip: engine.skip }, () => {
    let svc: TestServer;
    before(async () => {
      svc = await startTestServer({ engine: engine.name, overrides: { 'cache.purge_interval_seconds': 0.05, 'cache.purge_batch_size': 2 } });
    });
    after(async () => svc?.close());

    const metrics = async () => purgedCounts(await (await svc.call('GET', '/metrics')).text());

    test('expired entries of every tenant are deleted in the background and counted; unexpired ones stay and are served', async () => {
      assert.deepEqual(await metrics(), { exact: 0, semantic: 0 }, 'both series are exported from the start');
      const live = exactCacheKey({ tenant: 'acme', route: 'manual', model: 'none', request: { q: 'still fresh' } });
      const stored = await svc.call('POST', '/v1/cache/store', { key: KEYS.acmeWriter, body: { key: live, value: { text: 'fresh' }, verification: { type: 'non_empty_text' }, ttl_seconds: 600 } });
      assert.equal(stored.status, 200, await stored.clone().text());
      const semanticBody = { domain: 'faq', query: 'How long is the refund window?', source_fingerprints: ['doc:refunds@v1'], policy_id: 'pb_x', value: { text: '30 days' }, verification: { type: 'non_empty_text' } };
      assert.equal((await svc.call('POST', '/v1/cache/semantic/store', { key: KEYS.globexWriter, body: semanticBody })).status, 200);

      // Expired entries as a busy gateway leaves them (the API cannot store one already expired): 5 + 5 exact, 3 + 3 semantic.
      const { store } = svc.app;
      for (const tenant of ['acme', 'globex']) {
        for (let i = 0; i < 5; i++) {
          const key = exactCacheKey({ tenant, route: 'manual', model: 'none', request: { q: `old ${i}` } });
          await store.cacheEntries.put({ key, tenant, value: { text: 'old' }, verification: { type: 'non_empty_text' }, verifier: 'non_empty_text@1', origin: 'gateway', created_at: LONG_AGO, expires_at: LONG_AGO });
        }
        for (let i = 0; i < 3; i++) {
          await store.semanticCache.put({
            id: `sc_old_${tenant}_${i}`, tenant, domain: 'faq', embedder: 'lexical-ngram@1/512', normalised_query: 'old', lookup_key: null, embedding: [1, 0], source_fingerprints: ['a'], policy_id: 'pb_x',
            value: { text: 'old' }, verification: { type: 'non_empty_text' }, verifier: 'non_empty_text@1', created_at: LONG_AGO, expires_at: LONG_AGO,
          });
        }
      }

      const deadline = Date.now() + 20_000;
      let counts = await metrics();
      while ((counts.exact < 10 || counts.semantic < 6) && Date.now() < deadline) {
        await sleep(50);
        counts = await metrics();
      }
      assert.deepEqual(counts, { exact: 10, semantic: 6 }, 'every expired entry counted once');

      const exactLeft = await store.cacheEntries.scan(undefined, { tenant: '', key: '' }, 1000);
      assert.deepEqual(exactLeft.map((e) => [e.tenant, e.key]), [['acme', live]]);
      const semanticLeft = await store.semanticCache.scan(undefined, '', 1000);
      assert.deepEqual(semanticLeft.map((e) => e.tenant), ['globex']);
      const hit = (await (await svc.call('POST', '/v1/cache/exact/lookup', { key: KEYS.acmeWriter, body: { key: live } })).json()) as Json;
      assert.deepEqual([hit.hit, hit.value], [true, { text: 'fresh' }]);
      const q = { domain: 'faq', query: 'How long is the refund window?', source_fingerprints: ['doc:refunds@v1'], policy_id: 'pb_x', freshness: { max_age_seconds: 600 } };
      const semanticHit = (await (await svc.call('POST', '/v1/cache/semantic/lookup', { key: KEYS.globexWriter, body: q })).json()) as Json;
      assert.deepEqual([semanticHit.hit, semanticHit.value], [true, { text: '30 days' }]);

      // Rounds keep running with nothing to do: the counters do not move.
      await sleep(200);
      assert.deepEqual(await metrics(), { exact: 10, semantic: 6 });
    });
  });
}
