import assert from 'node:assert/strict';
import { test } from 'node:test';
/**
 * Defence in depth behind the critical alert SvcCrossTenantCacheHitAccepted:
 * both caches refuse (and count) an entry of another tenant that a broken
 * store hands back. Storage corruption is simulated by rewriting the tenant
 * of a stored entry inside the in-memory stores.
 */
import { makePrincipal } from '../auth/principal.ts';
import type { CacheLedgerEvent } from './cache-context.ts';
import { ExactCache } from './exact/exact-cache.ts';
import { exactCacheKey } from './exact/exact-cache-key.ts';
import { MemoryExactCacheStore } from './exact/memory-exact-cache-store.ts';
import { MemorySemanticCacheStore } from './semantic/memory-semantic-cache-store.ts';
import { SemanticCache } from './semantic/semantic-cache.ts';

const chatValue = { id: 'c1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }] };

test("an entry of another tenant coming back from a broken store is refused and counted, never served", async () => {
  const store = new MemoryExactCacheStore();
  let crossTenant = 0;
  const events: CacheLedgerEvent[] = [];
  const exact = new ExactCache({ store, ledger: { append: async (e: CacheLedgerEvent) => void events.push(e) }, onCrossTenantHit: () => crossTenant++ });
  const ctx = { principal: makePrincipal('p-acme', ['writer'], 'acme'), traceId: 'tr_x' };
  const key = exactCacheKey({ tenant: 'acme', route: 'chat.completions', model: 'p/m', request: { messages: [] } });
  await exact.store(ctx, { key, value: chatValue, verification: { type: 'chat_completion' } });
  assert.equal((await exact.lookup(ctx, { key })).hit, true, 'a healthy entry is a hit');
  assert.equal(crossTenant, 0);
  // Storage corruption: the row now claims another tenant (the memory store hands out its own object).
  (await store.get('acme', key))!.tenant = 'globex';
  assert.deepEqual(await exact.lookup(ctx, { key }), { hit: false, reason: 'cross_tenant' });
  assert.equal(crossTenant, 1);
});

test('a semantic candidate of another tenant from a broken store is never scored, and is counted', async () => {
  const store = new MemorySemanticCacheStore();
  let crossTenant = 0;
  const semantic = new SemanticCache({ store, ledger: { append: async () => {} }, onCrossTenantHit: (n) => (crossTenant += n) });
  const ctx = { principal: makePrincipal('p-acme', ['writer'], 'acme'), traceId: 'tr_x' };
  const entry = { domain: 'faq', source_fingerprints: ['doc:1@v1'], policy_id: 'pb_1', value: chatValue, verification: { type: 'chat_completion' as const } };
  const lookup = { domain: 'faq', query: 'how do I reset my password', source_fingerprints: ['doc:1@v1'], policy_id: 'pb_1', freshness: { max_age_seconds: 3600 } };
  await semantic.store(ctx, { ...entry, query: 'How do I reset my password?' });
  assert.equal((await semantic.lookup(ctx, lookup)).hit, true, 'a healthy entry is a hit');
  for (const e of await store.candidates({ tenant: 'acme', domain: 'faq', embedder: semantic.embedderId }, new Date(0).toISOString(), 10)) e.tenant = 'globex';
  assert.equal((await semantic.lookup(ctx, lookup)).hit, false);
  assert.equal(crossTenant, 1);
});
