/**
 * The semantic cache is safe by default (issue 11, docs/semantic-cache.md):
 * - near-topic negatives written here (not taken from any data set) are all
 *   refused through the real SemanticCache, while the same question typed
 *   differently (case, punctuation, contractions, spacing) is served;
 * - on a slice of QQP's development split (when ../shared/data is beside the
 *   repository) the default accepts no label-0 pair beyond the label noise
 *   (label-0 pairs that are the same question once normalised).
 * The full curve: `npm run bench -- semantic-cache`.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { test } from 'node:test';
import runSemanticCacheBench, { QQP_FILE } from '../../bench/suites/semantic-cache.ts';
import { makePrincipal } from '../../src/svc/auth/principal.ts';
import { MemorySemanticCacheStore } from '../../src/svc/cache/semantic/memory-semantic-cache-store.ts';
import { SemanticCache } from '../../src/svc/cache/semantic/semantic-cache.ts';

const NEAR_TOPIC_NEGATIVES: Array<[string, string]> = [
  ['How do I learn Python?', 'How do I learn Java?'],
  ['What is the capital of France?', 'What is the capital of Germany?'],
  ['How do I cancel my subscription?', 'How do I renew my subscription?'],
  ['What is the price of gold?', 'What is the price of gold in London?'],
  ['Where can I buy a used laptop?', 'How can I buy a used laptop?'],
  ['How do I convert Celsius to Fahrenheit?', 'How do I convert Fahrenheit to Celsius?'],
  ['Is Python faster than Java?', 'Is Java faster than Python?'],
  ['What is the best IDE for C# development?', 'What is the best IDE for C++ development?'],
  ['How many calories are in an apple?', 'How many calories are in two apples?'],
  ['Can I return a product after 30 days?', 'Can I return a product after 60 days?'],
  ['Why is the sky blue?', 'Why is the sea blue?'],
  ['How do I reset my router?', 'How do I reset my router password?'],
  ['What is machine learning?', 'What is deep learning?'],
  ['When does the pharmacy open on Sunday?', 'When does the pharmacy close on Sunday?'],
  ['Who wrote Hamlet?', 'Who wrote Macbeth?'],
  ['Is it safe to eat raw eggs?', 'Is it not safe to eat raw eggs?'],
  ['What is the refund policy for digital goods?', 'What is the refund policy for physical goods?'],
  ['How long does it take to boil an egg?', 'How long does it take to boil an egg at high altitude?'],
  ['What are the side effects of ibuprofen?', 'What are the benefits of ibuprofen?'],
  ['Which is bigger, a kilobyte or a kibibyte?', 'Which is smaller, a kilobyte or a kibibyte?'],
  ['How do I move files from my phone to my laptop?', 'How do I move files from my laptop to my phone?'],
  ['What was the GDP of India in 2019?', 'What was the GDP of India in 2020?'],
];

const SAME_QUESTION: Array<[string, string]> = [
  ["What's the refund window for digital goods?", 'what is the refund window for digital goods'],
  ['How do I reset my password?', 'how do I reset my password??'],
  ["Why can't I log in?", 'Why can not I log in'],
  ['Where is the nearest train station?', 'Where  is the nearest train station'],
];

function cacheFor() {
  const cache = new SemanticCache({ store: new MemorySemanticCacheStore(), ledger: { append: async () => {} } });
  const entry = { domain: 'faq', source_fingerprints: ['doc:1@v1'], policy_id: 'pb_1', value: { text: 'answer' }, verification: { type: 'non_empty_text' as const } };
  const lookup = (query: string) => ({ domain: 'faq', query, source_fingerprints: ['doc:1@v1'], policy_id: 'pb_1', freshness: { max_age_seconds: 3600 } });
  return { cache, entry, lookup };
}

test('the default refuses near-topic negatives and serves the same question typed differently', async () => {
  const { cache, entry, lookup } = cacheFor();
  // Each pair both ways: store one, ask the other, in a tenant of its own.
  for (const [i, [a, b]] of NEAR_TOPIC_NEGATIVES.entries()) {
    for (const [stored, asked, tenant] of [[a, b, `neg${i}a`], [b, a, `neg${i}b`]] as const) {
      const ctx = { principal: makePrincipal('t', ['writer'], tenant), traceId: 'tr' };
      await cache.store(ctx, { ...entry, query: stored });
      assert.equal((await cache.lookup(ctx, lookup(asked))).hit, false, `served the answer to "${stored}" for "${asked}"`);
    }
  }
  for (const [i, [stored, asked]] of SAME_QUESTION.entries()) {
    const ctx = { principal: makePrincipal('t', ['writer'], `pos${i}`), traceId: 'tr' };
    await cache.store(ctx, { ...entry, query: stored });
    assert.equal((await cache.lookup(ctx, lookup(asked))).hit, true, `missed "${asked}" for "${stored}"`);
  }
});

test('QQP dev slice: no false acceptance beyond the label noise', { skip: existsSync(QQP_FILE) ? false : 'QQP dev split not found beside the repository (../shared/data or SVC_QQP_FILE)', timeout: 120_000 }, async () => {
  const report = await runSemanticCacheBench(['--pairs', '3000', '--entries', '3000']);
  const r = report.results as Record<string, any>;
  assert.ok(r.default.false_accepts <= r.label_noise_floor.identical_after_normalisation_label_0 + 1, `false accepts ${r.default.false_accepts}, noise floor ${r.label_noise_floor.identical_after_normalisation_label_0}`);
  assert.ok(r.default.paraphrase_hit_rate > 0, 'the cache still serves some paraphrases');
  // The guard matters: at the old threshold it removes most false acceptances.
  const at08 = r.curve.find((c: any) => c.threshold === 0.8);
  assert.ok(at08.guarded.false_accept_rate < at08.unguarded.false_accept_rate / 5);
});
