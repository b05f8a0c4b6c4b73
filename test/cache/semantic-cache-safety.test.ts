/**
 * The semantic cache is safe by default (issue 11, docs/semantic-cache.md):
 * - near-topic negatives written here (not taken from any data set), across
 *   changed entities, numbers, negation, question type, a changed or added key
 *   word, word order, symbols and references outside the text, are all refused
 *   through the real SemanticCache, both ways, each for the reason it was
 *   written for;
 * - paraphrases written here (function words, inflection, spelling, what /
 *   which) are served, with the default operating point named in the hit;
 * - the benchmark suite runs on these hand-written pairs in every `npm test`
 *   (fast), and on a slice of QQP's development split when the data is beside
 *   the repository, where the default accepts no label-0 pair beyond the label
 *   noise. The full curve: `npm run bench -- semantic-cache`.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import runSemanticCacheBench, { QQP_FILE } from '../../bench/suites/semantic-cache.ts';
import { makePrincipal } from '../../src/svc/auth/principal.ts';
import { LEXICAL_SIMILARITY_THRESHOLD, lexicalEmbedder } from '../../src/svc/cache/semantic/embedder.ts';
import { MemorySemanticCacheStore } from '../../src/svc/cache/semantic/memory-semantic-cache-store.ts';
import { alignQueries } from '../../src/svc/cache/semantic/query-alignment.ts';
import { normaliseQuery } from '../../src/svc/cache/semantic/query-normaliser.ts';
import { SemanticCache } from '../../src/svc/cache/semantic/semantic-cache.ts';

/** [stored, asked, the refusal it was written to exercise] */
const NEAR_TOPIC_NEGATIVES: Array<[string, string, string]> = [
  // Another entity
  ['How do I learn Python?', 'How do I learn Java?', 'content_word_differs'],
  ['What is the capital of France?', 'What is the capital of Germany?', 'content_word_differs'],
  ['Who wrote Hamlet?', 'Who wrote Macbeth?', 'content_word_differs'],
  ['What is the population of Tokyo?', 'What is the population of Osaka?', 'content_word_differs'],
  ['How do I install Docker on Ubuntu?', 'How do I install Docker on Windows?', 'content_word_differs'],
  ['What are the side effects of ibuprofen?', 'What are the side effects of aspirin?', 'content_word_differs'],
  ['How do I cancel my Netflix subscription?', 'How do I cancel my Spotify subscription?', 'content_word_differs'],
  ['Is the US heading into a recession?', 'Are we heading into a recession?', 'content_word_differs'],
  ['What are the best IT jobs in Berlin?', 'What are the best jobs in Berlin?', 'content_word_differs'],
  // A number
  ['How many calories are in an apple?', 'How many calories are in two apples?', 'numbers_differ'],
  ['Can I return a product after 30 days?', 'Can I return a product after 60 days?', 'numbers_differ'],
  ['What was the GDP of India in 2019?', 'What was the GDP of India in 2020?', 'numbers_differ'],
  ['What is the best phone under $500?', 'What is the best phone under $300?', 'numbers_differ'],
  ['Is 17 a prime number?', 'Is 21 a prime number?', 'numbers_differ'],
  ['Is a salary of 1,000 euros enough in Lisbon?', 'Is a salary of 1 euro enough in Lisbon?', 'numbers_differ'],
  // Negation
  ['Is it safe to eat raw eggs?', 'Is it not safe to eat raw eggs?', 'negation_differs'],
  ['Why do cats purr?', "Why don't cats purr?", 'negation_differs'],
  ['Can I use my phone on the plane?', "Can't I use my phone on the plane?", 'negation_differs'],
  ['What happens if you sleep for eight hours?', 'What happens if you never sleep for eight hours?', 'negation_differs'],
  // Question type
  ['Where can I buy a used laptop?', 'How can I buy a used laptop?', 'question_word_differs'],
  ['Why is the sky blue?', 'When is the sky blue?', 'question_word_differs'],
  ['Who invented the telephone?', 'When was the telephone invented?', 'question_word_differs'],
  ['When does the pharmacy open on Sunday?', 'Where does the pharmacy open on Sunday?', 'question_word_differs'],
  ['What is a mortgage?', 'Why is a mortgage?', 'question_word_differs'],
  // A changed or added key word
  ['How do I cancel my subscription?', 'How do I renew my subscription?', 'content_word_differs'],
  ['When does the pharmacy open on Sunday?', 'When does the pharmacy close on Sunday?', 'content_word_differs'],
  ['What are the benefits of running?', 'What are the risks of running?', 'content_word_differs'],
  ['Which is bigger, a kilobyte or a kibibyte?', 'Which is smaller, a kilobyte or a kibibyte?', 'content_word_differs'],
  ['What is the price of gold?', 'What is the price of gold in London?', 'content_word_differs'],
  ['How do I reset my router?', 'How do I reset my router password?', 'content_word_differs'],
  ['What is machine learning?', 'What is deep learning?', 'content_word_differs'],
  ['Can children under five fly alone?', 'Can children over five fly alone?', 'content_word_differs'],
  // Word order
  ['Is Python faster than Java?', 'Is Java faster than Python?', 'word_order_differs'],
  ['How do I convert Celsius to Fahrenheit?', 'How do I convert Fahrenheit to Celsius?', 'word_order_differs'],
  ['How do I move files from my phone to my laptop?', 'How do I move files from my laptop to my phone?', 'word_order_differs'],
  // Conjuncts may swap, but not across a comparison
  ['Is tea healthier than coffee and juice?', 'Is coffee healthier than tea and juice?', 'word_order_differs'],
  // A preposition that ends the question asks for its object
  ['What is a VPN?', 'What is a VPN for?', 'content_word_differs'],
  ['Who is the parcel from?', 'Who is the parcel for?', 'content_word_differs'],
  // Words a general thesaurus files under one sense but that ask another question (WordNet 3.1 shares a synset for
  // each pair below): what a synonym rule must not serve (decision 186)
  ['How do I learn French?', 'How do I teach French?', 'content_word_differs'],
  ['Which vaccines do I need for Kenya?', 'Which vaccines do I want for Kenya?', 'content_word_differs'],
  ['Who was the mother of Queen Victoria?', 'Who was the father of Queen Victoria?', 'content_word_differs'],
  ['Who was the last king of Sweden?', 'Who was the last queen of Sweden?', 'content_word_differs'],
  // Symbols
  ['What is the best IDE for C# development?', 'What is the best IDE for C++ development?', 'symbols_differ'],
  ['What is the difference between = and == in JavaScript?', 'What is the difference between () and [] in JavaScript?', 'symbols_differ'],
  // A reference outside the text: the same words can ask about different things
  ['What does this error mean?', 'What does this error mean?', 'context_dependent'],
  ['What is the output of the following program?', 'What is the output of the following program?', 'context_dependent'],
];

/** The same question reworded: the default serves these (written for this test). */
const PARAPHRASES: Array<[string, string]> = [
  ["What's the refund window for digital goods?", 'what is the refund window for digital goods'],
  ['How do I reset my password?', 'how do I reset my password??'],
  ["Why can't I log in?", 'Why can not I log in'],
  ['How can I improve my English writing skills?', 'How do I improve my English writing skills?'],
  ['Summarise the quarterly sales report', 'Summarize the quarterly sales report'],
  ['Which countries have the highest life expectancy?', 'What countries have the highest life expectancy?'],
  ['How do vaccines train the immune system?', 'How does a vaccine train the immune system?'],
  ['What are the health benefits of drinking green tea?', 'What are some health benefits of drinking green tea?'],
  ['How should I prepare for a software engineering interview?', 'How do I prepare for a software engineering interview?'],
  ["What is the colour of a polar bear's skin?", "What is the color of a polar bear's skin?"],
  ['What are the symptoms of vitamin D deficiency?', 'What are the symptoms of a vitamin D deficiency?'],
  ['Is it safe to travel to Iceland in winter?', 'Is it safe to travel to Iceland during winter?'],
  // Coordination in either order, "&" for "and", the possessive, irregular plurals and verb forms
  ['What is the difference between a crocodile and an alligator?', 'What is the difference between an alligator and a crocodile?'],
  ['Should I learn Spanish or Portuguese first?', 'Should I learn Portuguese or Spanish first?'],
  ['Can I mix bleach & vinegar?', 'Can I mix bleach and vinegar?'],
  ["How do I change my Gmail account's password?", 'How do I change my Gmail account password?'],
  ['What are good ways to keep children busy on a rainy day?', 'What are good ways to keep a child busy on a rainy day?'],
  ['What should I do if my dog ate a whole bar of dark chocolate?', 'What should I do if my dog eats a whole bar of dark chocolate?'],
  // A synonym in its usual sense (decision 187)
  ['Which film won the most Oscars in history?', 'Which movie won the most Oscars in history?'],
  ['Where can I purchase a used bicycle in Utrecht?', 'Where can I buy a used bicycle in Utrecht?'],
];

/** Reworded in function words, but by more than the default accepts: a change of tense ("will" / "does"). */
const BELOW_THRESHOLD: Array<[string, string]> = [
  ['Will it snow in Denver?', 'Does it snow in Denver?'],
  ['Will the bank close my account?', 'Did the bank close my account?'],
];

function cacheFor() {
  const cache = new SemanticCache({ store: new MemorySemanticCacheStore(), ledger: { append: async () => {} } });
  const entry = { domain: 'faq', source_fingerprints: ['doc:1@v1'], policy_id: 'pb_1', value: { text: 'answer' }, verification: { type: 'non_empty_text' as const } };
  const lookup = (query: string) => ({ domain: 'faq', query, source_fingerprints: ['doc:1@v1'], policy_id: 'pb_1', freshness: { max_age_seconds: 3600 } });
  return { cache, entry, lookup };
}

test('the default refuses near-topic negatives written for it, each for its reason, both ways', async () => {
  assert.ok(NEAR_TOPIC_NEGATIVES.length >= 30);
  const { cache, entry, lookup } = cacheFor();
  for (const [i, [a, b, why]] of NEAR_TOPIC_NEGATIVES.entries()) {
    const alignment = alignQueries(normaliseQuery(a), normaliseQuery(b));
    assert.deepEqual(alignment.same ? 'accepted' : alignment.reason, why, `"${a}" / "${b}"`);
    for (const [stored, asked, tenant] of [[a, b, `neg${i}a`], [b, a, `neg${i}b`]] as const) {
      const ctx = { principal: makePrincipal('t', ['writer'], tenant), traceId: 'tr' };
      await cache.store(ctx, { ...entry, query: stored });
      const r = await cache.lookup(ctx, lookup(asked));
      assert.equal(r.hit, false, `served the answer to "${stored}" for "${asked}"`);
    }
  }
});

test('the default serves paraphrases written for it, naming the operating point', async () => {
  const { cache, entry, lookup } = cacheFor();
  for (const [i, [stored, asked]] of PARAPHRASES.entries()) {
    const ctx = { principal: makePrincipal('t', ['writer'], `pos${i}`), traceId: 'tr' };
    await cache.store(ctx, { ...entry, query: stored });
    const r = await cache.lookup(ctx, lookup(asked));
    assert.equal(r.hit, true, `missed "${asked}" for "${stored}"`);
    assert.deepEqual(r.hit && r.operating_point, { source: 'default', embedder: lexicalEmbedder.id, threshold: LEXICAL_SIMILARITY_THRESHOLD });
  }
});

test('a change of tense in a short question stays below the default threshold, both ways', async () => {
  const { cache, entry, lookup } = cacheFor();
  for (const [i, [a, b]] of BELOW_THRESHOLD.entries()) {
    const alignment = alignQueries(normaliseQuery(a), normaliseQuery(b));
    assert.ok(alignment.same && alignment.similarity < LEXICAL_SIMILARITY_THRESHOLD, `"${a}" / "${b}": ${JSON.stringify(alignment)}`);
    for (const [stored, asked, tenant] of [[a, b, `low${i}a`], [b, a, `low${i}b`]] as const) {
      const ctx = { principal: makePrincipal('t', ['writer'], tenant), traceId: 'tr' };
      await cache.store(ctx, { ...entry, query: stored });
      assert.equal((await cache.lookup(ctx, lookup(asked))).hit, false, `served the answer to "${stored}" for "${asked}"`);
    }
  }
});

test('an entry is found by its lookup key, or a synonym variant\'s, however many newer entries the partition holds', async () => {
  const cache = new SemanticCache({ store: new MemorySemanticCacheStore(), ledger: { append: async () => {} }, recentCandidates: 10 });
  const { entry, lookup } = cacheFor();
  const ctx = { principal: makePrincipal('t', ['writer'], 'many'), traceId: 'tr' };
  await cache.store(ctx, { ...entry, query: 'How can I export my billing history as a spreadsheet?' });
  for (let i = 0; i < 200; i++) await cache.store(ctx, { ...entry, query: `What is the opening time of store number ${i}?` });
  assert.equal((await cache.lookup(ctx, lookup('How do I export my billing history as a spreadsheet?'))).hit, true);
  // A typo changes the key: found among the newest entries only.
  // A synonym changes the key too: found by the key of the query's synonym variant, however old (decision 187).
  await cache.store(ctx, { ...entry, query: 'Which film won the most Oscars in the last century?' });
  for (let i = 0; i < 20; i++) await cache.store(ctx, { ...entry, query: `When does the branch in district ${i} close?` });
  assert.equal((await cache.lookup(ctx, lookup('Which movie won the most Oscars in the last century?'))).hit, true);
  await cache.store(ctx, { ...entry, query: 'How do I configure email notifications for my shared workspace?' });
  assert.equal((await cache.lookup(ctx, lookup('How do I configure email notifications for my shared worksapce?'))).hit, true);
});

test('the benchmark suite runs on the hand-written pairs (fast, every npm test)', { timeout: 60_000 }, async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-semcache-bench-'));
  try {
    const file = path.join(dir, 'pairs.jsonl');
    const rows = [
      ...NEAR_TOPIC_NEGATIVES.map(([a, b], i) => ({ id: 2 * i, text_a: a, text_b: b, label: 0 })),
      ...PARAPHRASES.map(([a, b], i) => ({ id: 2 * i + 1, text_a: a, text_b: b, label: 1 })),
    ];
    writeFileSync(file, `${rows.map((r) => JSON.stringify(r)).join('\n')}\n`);
    const report = await runSemanticCacheBench(['--pairs-file', file, '--entries', '500']);
    const r = report.results as Record<string, any>;
    assert.equal(r.default.false_accepts, 0);
    assert.equal(r.default.hits, PARAPHRASES.length);
    assert.equal(r.operating_point.threshold, LEXICAL_SIMILARITY_THRESHOLD);
    assert.ok(r.curves.length >= 2, 'the default and the bare-cosine comparison');
    assert.equal(r.lookup_ms.entries, 500);
    assert.ok(r.lookup_ms.p95 >= r.lookup_ms.p50);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('QQP dev slice: no false acceptance beyond the label noise', { skip: existsSync(QQP_FILE) ? false : 'QQP dev split not found beside the repository (../shared/data or SVC_QQP_FILE)', timeout: 120_000 }, async () => {
  const report = await runSemanticCacheBench(['--pairs', '3000', '--entries', '3000']);
  const r = report.results as Record<string, any>;
  assert.ok(r.default.false_accepts <= r.label_noise_floor.identical_after_normalisation_label_0 + 1, `false accepts ${r.default.false_accepts}, noise floor ${r.label_noise_floor.identical_after_normalisation_label_0}`);
  assert.ok(r.default.paraphrase_hit_rate > 0.02, `hit rate ${r.default.paraphrase_hit_rate}`);
  // The alignment is what makes it safe: a bare cosine threshold at the same hit rate accepts far more negatives.
  const bare = r.curves[1].curve as Array<{ false_accept_rate: number; hit_rate: number }>;
  const sameHits = bare.filter((c) => c.hit_rate >= r.default.paraphrase_hit_rate).at(-1)!;
  assert.ok(sameHits.false_accept_rate > 5 * r.default.false_accept_rate + 0.001, JSON.stringify(sameHits));
});
