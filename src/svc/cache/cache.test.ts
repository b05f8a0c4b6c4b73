import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Compile } from 'typebox/compile';
import { makePrincipal } from '../auth/principal.ts';
import { SvcError } from '../errors.ts';
import type { CacheLedgerEvent } from './cache-context.ts';
import { CacheStoreRequest } from './cache-schemas.ts';
import { ExactCache } from './exact/exact-cache.ts';
import { exactCacheKey } from './exact/exact-cache-key.ts';
import { MemoryExactCacheStore } from './exact/memory-exact-cache-store.ts';
import { LEXICAL_SIMILARITY_THRESHOLD } from './semantic/embedder.ts';
import { alignQueries } from './semantic/query-alignment.ts';
import { MemorySemanticCacheStore } from './semantic/memory-semantic-cache-store.ts';
import { normaliseQuery } from './semantic/query-normaliser.ts';
import { SemanticCache } from './semantic/semantic-cache.ts';
import { runVerifier } from './verifiers/run-verifier.ts';
import { valueDigest } from './verifiers/sha256-verifier.ts';

function setup(now = () => Date.now()) {
  const events: CacheLedgerEvent[] = [];
  const ledger = { append: async (e: CacheLedgerEvent) => events.push(e) };
  const exact = new ExactCache({ store: new MemoryExactCacheStore(), ledger, now });
  const semantic = new SemanticCache({ store: new MemorySemanticCacheStore(), ledger, now });
  const ctx = (tenant: string | undefined, roles: Parameters<typeof makePrincipal>[1] = ['writer']) => ({ principal: makePrincipal(`p-${tenant}`, roles, tenant), traceId: 'tr_x' });
  return { events, exact, semantic, ctx };
}

const chatValue = { id: 'c1', object: 'chat.completion', created: 1, model: 'm', choices: [{ index: 0, message: { role: 'assistant', content: '{"a":1,"b":2}' }, finish_reason: 'stop' }] };
const key = exactCacheKey({ tenant: 'acme', route: 'chat.completions', model: 'p/m', request: { messages: [] } });

test('the store request schema rejects a client-supplied verifier_passed', () => {
  const check = Compile(CacheStoreRequest);
  const body = { key, value: chatValue, verification: { type: 'chat_completion' }, ttl_seconds: 60 };
  assert.equal(check.Check(body), true);
  assert.equal(check.Check({ ...body, verifier_passed: true }), false);
});

test('exact keys differ by tenant, route, model and every request field', () => {
  const base = { tenant: 'acme', route: 'chat.completions', model: 'p/m', request: { messages: [{ role: 'user', content: 'hi' }], temperature: 0 } };
  const k = exactCacheKey(base);
  assert.match(k, /^ck_[0-9a-f]{64}$/);
  assert.notEqual(exactCacheKey({ ...base, tenant: 'globex' }), k);
  assert.notEqual(exactCacheKey({ ...base, model: 'p/other' }), k);
  assert.notEqual(exactCacheKey({ ...base, request: { ...base.request, temperature: 1 } }), k);
  assert.equal(exactCacheKey({ ...base, request: { temperature: 0, messages: base.request.messages } }), k, 'key order does not matter');
});

test('each verifier type accepts a good value and rejects a bad one', () => {
  assert.equal(runVerifier({ type: 'chat_completion' }, chatValue).passed, true);
  assert.equal(runVerifier({ type: 'chat_completion' }, { choices: [{ message: { role: 'assistant', content: ' ' } }] }).passed, false);
  assert.equal(runVerifier({ type: 'json_shape', required_keys: ['a', 'b'] }, chatValue).passed, true);
  assert.equal(runVerifier({ type: 'json_shape', required_keys: ['c'] }, chatValue).passed, false);
  assert.equal(runVerifier({ type: 'json_shape', required_keys: ['x'] }, { x: 1 }).passed, true);
  assert.equal(runVerifier({ type: 'non_empty_text' }, { text: 'hello' }).passed, true);
  assert.equal(runVerifier({ type: 'non_empty_text' }, { text: '  ' }).passed, false);
  assert.equal(runVerifier({ type: 'embedding_shape', dimensions: 3, count: 1 }, { data: [{ embedding: [0.1, 0.2, 0.3] }] }).passed, true);
  assert.equal(runVerifier({ type: 'embedding_shape' }, { data: [{ embedding: [0.1, 0.2] }, { embedding: [0.1] }] }).passed, false);
  assert.equal(runVerifier({ type: 'sha256', sha256: valueDigest({ b: 1, a: 2 }) }, { a: 2, b: 1 }).passed, true);
  assert.equal(runVerifier({ type: 'sha256', sha256: valueDigest('x') }, 'y').passed, false);
  assert.equal(runVerifier({ type: 'json_shape', required_keys: ['a'] }, chatValue).verifier, 'json_shape@1');
});

test('keys are per tenant: another tenant misses, stores the same key in its own namespace, and never sees or touches the first', async () => {
  const { exact, ctx, events } = setup();
  await exact.store(ctx('acme'), { key, value: chatValue, verification: { type: 'chat_completion' } });
  const hit = await exact.lookup(ctx('acme'), { key });
  assert.equal(hit.hit, true);
  assert.deepEqual(await exact.lookup(ctx('globex'), { key }), { hit: false, reason: 'absent' }, 'the same answer as for a key nobody stored');
  const globexValue = { ...chatValue, id: 'globex-own' };
  const stored = await exact.store(ctx('globex'), { key, value: globexValue, verification: { type: 'chat_completion' } });
  assert.deepEqual([stored.key, stored.tenant], [key, 'globex']);
  const globexHit = await exact.lookup(ctx('globex'), { key });
  assert.deepEqual(globexHit.hit && globexHit.entry.value, globexValue);
  const stillAcme = await exact.lookup(ctx('acme'), { key });
  assert.deepEqual(stillAcme.hit && [stillAcme.entry.tenant, stillAcme.entry.value], ['acme', chatValue]);
  // Naming another tenant is still a refused, audited cross-tenant attempt.
  await assert.rejects(exact.lookup(ctx('globex'), { key, tenant: 'acme' }), (e: SvcError) => e.code === 'cache_permission_denied');
  assert.equal(events.filter((e) => e.type === 'cache.cross_tenant.denied').length, 1);
});

test('a value that fails its verifier is refused and never stored', async () => {
  const { exact, ctx } = setup();
  await assert.rejects(exact.store(ctx('acme'), { key, value: { choices: [] }, verification: { type: 'chat_completion' } }), (e: SvcError) => e.code === 'verifier_failed');
  assert.deepEqual(await exact.lookup(ctx('acme'), { key }), { hit: false, reason: 'absent' });
});

test('an expired exact entry is a miss', async () => {
  let now = 1_000_000;
  const { exact, ctx } = setup(() => now);
  await exact.store(ctx('acme'), { key, value: chatValue, verification: { type: 'chat_completion' }, ttl_seconds: 10 });
  now += 11_000;
  assert.deepEqual(await exact.lookup(ctx('acme'), { key }), { hit: false, reason: 'expired' });
});

test('a principal without cache permissions gets cache_permission_denied', async () => {
  const { exact, ctx } = setup();
  await assert.rejects(exact.lookup(ctx('acme', ['auditor']), { key }), (e: SvcError) => e.code === 'cache_permission_denied');
});

test('the alignment refuses negation, numbers, symbols, changed or added content words, question words, word order and context references, but not rewording', () => {
  const judge = (a: string, b: string) => alignQueries(normaliseQuery(a), normaliseQuery(b));
  const refused = (a: string, b: string) => {
    const r = judge(a, b);
    return r.same ? 'accepted' : r.reason;
  };
  assert.equal(refused('What is the price of gold?', 'What is the price of gold in the UK?'), 'content_word_differs');
  assert.equal(refused('Where can I learn the art of deduction?', 'How can I learn the art of deduction?'), 'question_word_differs');
  assert.equal(refused('How do you convert benzene into toluene?', 'How do you convert toluene into benzene?'), 'word_order_differs');
  assert.equal(refused('What is the best Java book for a C# programmer?', 'What is the best Java book for a C++ programmer?'), 'symbols_differ');
  assert.equal(refused('What is the difference between = and == in Python?', 'What is the difference between () and [] in Python?'), 'symbols_differ');
  assert.equal(refused('Is the refund valid for digital goods?', "Isn't the refund valid for digital goods?"), 'negation_differs');
  assert.equal(refused('What was revenue in 2023?', 'What was revenue in 2024?'), 'numbers_differ');
  assert.equal(refused('Is it 1,000 dollars?', 'Is it 1 dollar?'), 'numbers_differ');
  assert.equal(refused('What is the capital of France?', 'What is the capital of Germany?'), 'content_word_differs');
  assert.equal(refused('What is the output of the following program?', 'What is the output of the following program?'), 'context_dependent');
  assert.equal(refused('Is the US heading into a recession?', 'Are we heading into a recession?'), 'content_word_differs');
  // A final preposition is a content word; conjuncts swap only around "and" / "or".
  assert.equal(refused('What is this cable?', 'What is this cable for?'), 'context_dependent');
  assert.equal(refused('What is a dongle?', 'What is a dongle for?'), 'content_word_differs');
  assert.equal(refused('Is a cat smarter than a dog?', 'Is a dog smarter than a cat?'), 'word_order_differs');
  // "&" alone is "and"; inside a name it stays a symbol.
  assert.equal(normaliseQuery('Salt & pepper'), 'salt and pepper');
  assert.equal(refused('Who owns AT&T?', 'Who owns AT and T?'), 'symbols_differ');
  // Rewording the alignment accepts, with a similarity that falls with what changed and rises with the question's length.
  const similarity = (a: string, b: string) => {
    const r = judge(a, b);
    assert.ok(r.same, `refused "${a}" / "${b}"`);
    return r.similarity;
  };
  assert.equal(similarity("What's the refund window?", 'what is the refund window'), 1);
  assert.equal(similarity('Summarize the quarterly report', 'Summarise the quarterly report'), 1);
  assert.ok(similarity('How do I reset my password?', 'How can I reset my password please?') < 1);
  assert.ok(similarity('What are the best books on machine learning?', 'Which is the best book on machine learning?') > similarity('What are the best books?', 'Which is the best book?'));
  assert.ok(similarity('How can I improve my written English quickly?', 'How do I improve my written English quickly?') > similarity('How can I swim?', 'How do I swim?'));
  // Tense ("will", like "did") changes more than a modal ("can" / "do").
  assert.ok(similarity('Will the ferry run on Sunday?', 'Does the ferry run on Sunday?') < similarity('Can the ferry run on Sunday?', 'Does the ferry run on Sunday?'));
  // Conjuncts in the other order, irregular forms, the possessive: one small step each.
  assert.ok(similarity('Is it safe to mix bleach and vinegar?', 'Is it safe to mix vinegar and bleach?') >= 0.95);
  assert.ok(similarity('How many teeth does a shark have?', 'How many tooth does a shark have?') >= 0.95);
  assert.ok(similarity('Who bought Twitter in 2022?', 'Who buys Twitter in 2022?') < 1);
  assert.equal(similarity("What is the dog's name?", 'What is the dog name?'), 1);
  // A synonym in its usual sense (decision 187) is a small step, like an inflection; a thesaurus's rarer sense is not.
  const film = similarity('Which film won the most Oscars in history?', 'Which movie won the most Oscars in history?');
  assert.ok(film < 1 && film >= LEXICAL_SIMILARITY_THRESHOLD, `film / movie: ${film}`);
  assert.ok(similarity('Where can I purchase a used bicycle in Utrecht?', 'Where can I buy a used bicycle in Utrecht?') >= LEXICAL_SIMILARITY_THRESHOLD);
  assert.ok(similarity('Where can I purchase a used bicycle?', 'Where can I buy used bicycles?') < LEXICAL_SIMILARITY_THRESHOLD, 'a synonym and a plural in a short question');
  assert.ok(similarity('Why is quitting smoking so difficult?', 'Why is stopping smoking so hard?') < 1);
  assert.equal(refused('Which vaccines do I need for Kenya?', 'Which vaccines do I want for Kenya?'), 'content_word_differs');
  assert.equal(refused('How do I learn French?', 'How do I teach French?'), 'content_word_differs');
  assert.equal(refused('Is coffee bad for you?', 'Is tea bad for you?'), 'content_word_differs');
  // "java" is tagged 3 times in WordNet's counts, once as coffee: too few to call that a usual sense.
  assert.equal(refused('How do I install Java on Windows?', 'How do I install coffee on Windows?'), 'content_word_differs');
  assert.ok(similarity('Which films won the most Oscars in history?', 'Which movies won the most Oscars in history?') >= LEXICAL_SIMILARITY_THRESHOLD);
});

const semanticEntry = { domain: 'faq', source_fingerprints: ['doc:1@v1'], policy_id: 'pb_1', value: chatValue, verification: { type: 'chat_completion' as const } };
const lookupOf = (query: string, extra: Record<string, unknown> = {}) => ({ domain: 'faq', query, source_fingerprints: ['doc:1@v1'], policy_id: 'pb_1', freshness: { max_age_seconds: 3600 }, ...extra });

test('a semantic paraphrase hits, is verified, and writes ai.semantic_cache.accepted', async () => {
  const { semantic, ctx, events } = setup();
  await semantic.store(ctx('acme'), { ...semanticEntry, query: "What's the refund window for digital goods?" });
  const hit = await semantic.lookup(ctx('acme'), lookupOf('what is the refund window for digital goods'));
  assert.equal(hit.hit, true);
  // The safe default (docs/semantic-cache.md) does not accept a short question reworded by a modal ("should" asks for
  // advice, "do" for a method): a miss costs a provider call only. ("How can I" is "How do I", decision 204.)
  await semantic.store(ctx('acme'), { ...semanticEntry, query: 'How do I reset my password?' });
  assert.equal((await semantic.lookup(ctx('acme'), lookupOf('How should I reset my password?'))).hit, false);
  assert.equal(events.filter((e) => e.type === 'ai.semantic_cache.accepted').length, 1);
});

test('a semantic negation pair and a numeric pair are misses', async () => {
  const { semantic, ctx } = setup();
  await semantic.store(ctx('acme'), { ...semanticEntry, query: 'Is the refund policy valid for digital goods in 2024?' });
  const negated = await semantic.lookup(ctx('acme'), lookupOf('Is the refund policy not valid for digital goods in 2024?'));
  assert.equal(negated.hit, false);
  const year = await semantic.lookup(ctx('acme'), lookupOf('Is the refund policy valid for digital goods in 2025?'));
  assert.equal(year.hit, false);
});

test('a changed source fingerprint or an old entry is a stale miss; another policy is a miss', async () => {
  let now = 5_000_000;
  const { semantic, ctx } = setup(() => now);
  await semantic.store(ctx('acme'), { ...semanticEntry, query: 'What is the refund window?' });
  const changed = await semantic.lookup(ctx('acme'), lookupOf('What is the refund window?', { source_fingerprints: ['doc:1@v2'] }));
  assert.deepEqual([changed.hit, !changed.hit && changed.stale], [false, true]);
  const policy = await semantic.lookup(ctx('acme'), lookupOf('What is the refund window?', { policy_id: 'pb_2' }));
  assert.deepEqual([policy.hit, !policy.hit && policy.reason], [false, 'policy_changed']);
  now += 120_000;
  const old = await semantic.lookup(ctx('acme'), lookupOf('What is the refund window?', { freshness: { max_age_seconds: 60 } }));
  assert.deepEqual([old.hit, !old.hit && old.stale], [false, true]);
});

test('semantic entries are invisible to other tenants, and naming another tenant is refused', async () => {
  const { semantic, ctx, events } = setup();
  await semantic.store(ctx('acme'), { ...semanticEntry, query: 'What is the refund window?' });
  const other = await semantic.lookup(ctx('globex'), lookupOf('What is the refund window?'));
  assert.equal(other.hit, false);
  await assert.rejects(semantic.lookup(ctx('globex'), { ...lookupOf('What is the refund window?'), tenant: 'acme' }), (e: SvcError) => e.code === 'cache_permission_denied');
  assert.equal(events.filter((e) => e.type === 'cache.cross_tenant.denied').length, 1);
});

test('clearing the semantic cache removes the tenant\'s entries and needs admin:switches', async () => {
  const { semantic, ctx } = setup();
  await semantic.store(ctx('acme'), { ...semanticEntry, query: 'What is the refund window?' });
  await assert.rejects(semantic.clear(ctx('acme'), {}), (e: SvcError) => e.code === 'cache_permission_denied');
  const cleared = await semantic.clear(ctx('acme', ['admin']), {});
  assert.deepEqual(cleared, { tenant: 'acme', removed: 1 });
  assert.equal((await semantic.lookup(ctx('acme'), lookupOf('What is the refund window?'))).hit, false);
});

test('the rollback clear removes one tenant\'s semantic entries, or every tenant\'s when no tenant is named', async () => {
  const { semantic, ctx } = setup();
  for (const tenant of ['acme', 'globex']) await semantic.store(ctx(tenant), { ...semanticEntry, query: 'What is the refund window?' });
  assert.equal(await semantic.clearForRollback('acme'), 1);
  assert.equal((await semantic.lookup(ctx('acme'), lookupOf('What is the refund window?'))).hit, false);
  assert.equal((await semantic.lookup(ctx('globex'), lookupOf('What is the refund window?'))).hit, true);
  assert.equal(await semantic.clearForRollback(undefined), 1);
  assert.equal((await semantic.lookup(ctx('globex'), lookupOf('What is the refund window?'))).hit, false);
});
