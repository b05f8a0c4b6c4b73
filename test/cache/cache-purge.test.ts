/**
 * The background purge of expired cache entries (decision 184), on SQLite and
 * PostgreSQL: the repositories' batched deletes, the purge round over both
 * tables, its lease (two purgers on one database: one purges), and the
 * expiry indexes the deletes read through.
 */
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import { CachePurge, GRACE_MS } from '../../src/svc/cache/cache-purge.ts';
import type { ExactCacheEntry } from '../../src/svc/cache/exact/exact-cache-store.ts';
import type { SemanticCacheEntry } from '../../src/svc/cache/semantic/semantic-cache-store.ts';
import type { Store } from '../../src/svc/store/store.ts';
import { engines } from '../helpers/engines.ts';
import { engineStoreFixture } from '../helpers/engine-store.ts';

const NOW = Date.parse('2026-06-01T12:00:00.000Z');
const at = (offsetMs: number) => new Date(NOW + offsetMs).toISOString();
const TENANTS = ['acme', 'globex'] as const;

const exact = (tenant: string, key: string, expiresAt: string): ExactCacheEntry => ({
  key, tenant, value: { text: key }, verification: { type: 'non_empty_text' }, verifier: 'non_empty_text@1', origin: 'gateway', created_at: at(-86_400_000), expires_at: expiresAt,
});
const semantic = (tenant: string, id: string, expiresAt: string): SemanticCacheEntry => ({
  id, tenant, domain: 'faq', embedder: 'lexical-ngram@1/512', normalised_query: 'q', lookup_key: 'k', embedding: [0.5, 0.25], source_fingerprints: ['a'], policy_id: 'pb_1',
  value: { text: id }, verification: { type: 'non_empty_text' }, verifier: 'non_empty_text@1', created_at: at(-86_400_000), expires_at: expiresAt,
});

/**
 * Per tenant: 7 entries expired at or before `cutoff` (the last exactly at it) and 3 not (1 ms after it, later
 * today, next month). Returns the keys that must survive.
 */
async function seed(store: Store, prefix: string, cutoffMs: number): Promise<{ keep: string[]; expired: number }> {
  const keep: string[] = [];
  let expired = 0;
  for (const tenant of TENANTS) {
    for (let i = 0; i < 7; i++) {
      const when = at(cutoffMs - (i === 6 ? 0 : (i + 1) * 3_600_000));
      await store.cacheEntries.put(exact(tenant, `${prefix}_x${i}`, when));
      await store.semanticCache.put(semantic(tenant, `${prefix}_${tenant}_s${i}`, when));
      expired++;
    }
    for (const [i, later] of [1, 3_600_000, 30 * 86_400_000].entries()) {
      await store.cacheEntries.put(exact(tenant, `${prefix}_live${i}`, at(cutoffMs + later)));
      await store.semanticCache.put(semantic(tenant, `${prefix}_${tenant}_live${i}`, at(cutoffMs + later)));
      keep.push(`${tenant}/${prefix}_live${i}`, `${tenant}/${prefix}_${tenant}_live${i}`);
    }
  }
  return { keep, expired };
}

async function remaining(store: Store, prefix: string): Promise<{ exact: ExactCacheEntry[]; semantic: string[] }> {
  const all = await store.cacheEntries.scan(undefined, { tenant: '', key: '' }, 10_000);
  const sem = await store.semanticCache.scan(undefined, '', 10_000);
  return {
    exact: all.filter((e) => e.key.startsWith(prefix)),
    semantic: sem.filter((e) => e.id.startsWith(prefix)).map((e) => `${e.tenant}/${e.id}`),
  };
}

for (const engine of engines()) {
  describe(`cache purge on ${engine.name}`, { skip: engine.skip }, () => {
    const fixture = engineStoreFixture(engine.name);
    let store: Store;
    before(() => {
      store = fixture.store;
    });

    test('deleteExpired takes only entries expired at or before the cutoff, of every tenant, at most `limit` per call', async () => {
      const cutoff = 0;
      const { keep, expired } = await seed(store, 'rp', cutoff);
      for (const table of [store.cacheEntries, store.semanticCache]) {
        const batches: number[] = [];
        for (;;) {
          const n = await table.deleteExpired(at(cutoff), 4);
          batches.push(n);
          if (n < 4) break;
        }
        assert.deepEqual(batches, [4, 4, 4, 2], `${expired} expired entries in batches of at most 4`);
      }
      const left = await remaining(store, 'rp');
      assert.deepEqual(left.exact.map((e) => `${e.tenant}/${e.key}`).sort(), keep.filter((k) => k.includes('/rp_live')).sort());
      assert.deepEqual(left.semantic.sort(), keep.filter((k) => !k.includes('/rp_live')).sort());
      for (const e of left.exact) assert.ok(e.expires_at > at(cutoff), `${e.tenant}/${e.key} was unexpired`);
      assert.equal(await store.cacheEntries.deleteExpired(at(cutoff), 4), 0);
    });

    test('a purge round: one lease holder purges both tables in batches, counts them, and leaves every unexpired entry', async () => {
      // The round deletes what expired GRACE_MS before its clock: seed with the cutoff there.
      const { keep } = await seed(store, 'pr', -GRACE_MS);
      const counted: Array<[string, number]> = [];
      const options = { tables: { exact: store.cacheEntries, semantic: store.semanticCache }, lease: store.leases, intervalMs: 1000, batchSize: 5, now: () => new Date(NOW) };
      const first = new CachePurge({ ...options, onPurged: (cache, rows) => counted.push([cache, rows]) });
      const second = new CachePurge({ ...options, onPurged: () => assert.fail('the second purger does not hold the lease') });
      const round = await first.runOnce();
      assert.deepEqual(round, { leader: true, purged: { exact: 14, semantic: 14 }, batches: 6 });
      assert.deepEqual(counted, [['exact', 5], ['exact', 5], ['exact', 4], ['semantic', 5], ['semantic', 5], ['semantic', 4]]);
      const left = await remaining(store, 'pr');
      assert.equal(left.exact.length + left.semantic.length, keep.length);
      assert.deepEqual([...left.exact.map((e) => `${e.tenant}/${e.key}`), ...left.semantic].sort(), [...keep].sort());
      // Another process on the same database waits for the lease; the holder renews it each round.
      assert.equal((await second.runOnce()).leader, false);
      assert.equal((await first.runOnce()).leader, true);
      await first.stop(); // gives the lease back
      assert.equal((await second.runOnce()).leader, true);
      await second.stop();
    });

    test('the deletes read the expiry indexes (migration 123), not the whole table', async () => {
      if (engine.name === 'sqlite') {
        for (const [table, index] of [['cache_entries', 'cache_entries_expiry_idx'], ['semantic_cache_entries', 'semantic_cache_expiry_idx']]) {
          const plan = await store.db.all<{ detail: string }>(`EXPLAIN QUERY PLAN SELECT 1 FROM ${table} WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2`, [at(0), 10]);
          assert.ok(plan.some((r) => r.detail.includes(`USING COVERING INDEX ${index}`) || r.detail.includes(`USING INDEX ${index}`)), JSON.stringify(plan));
        }
      } else {
        const rows = await store.db.all<{ indexname: string; indexdef: string }>(
          "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() AND tablename IN ('cache_entries', 'semantic_cache_entries') AND indexdef LIKE '%(expires_at)'",
        );
        assert.deepEqual(rows.map((r) => r.indexname).sort(), ['cache_entries_expiry_idx', 'semantic_cache_expiry_idx']);
      }
    });
  });
}
