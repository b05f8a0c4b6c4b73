/**
 * Issue 18 items 1–5, each on the example corpus through the engine and the
 * response verifier: what used to be `ready` is blocked for the reason the
 * rule names, and the grounded answer it rode on is still ready.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyAttributionResponse } from '../../../src/attr/engine/index.ts';
import { attribute } from './fixtures.ts';

const BEES = 'Western honeybees usually forage within 3 kilometres of their hive.';
const BEE_URI = 'https://www.example.edu/entomology/honeybee-foraging';

async function outcome(output: string, n: number) {
  const r = await attribute(output, '10.00', n);
  const report = verifyAttributionResponse(r);
  assert.equal(report.internally_consistent, true, 'the verifier re-derives the same findings');
  return { r, ready: report.production_display_ready, rules: r.source_footer.blocking_rules, codes: r.audit_errors.map((e) => e.code) };
}

test('the grounded sentence the repros start from is ready', async () => {
  const { r, ready } = await outcome(BEES, 1);
  assert.equal(r.status, 'ready');
  assert.equal(ready, true);
});

test('item 1: an unsupported clause riding on a supported one is not supported', async () => {
  const { r, ready } = await outcome('Western honeybees usually forage within 3 kilometres of their hive, and they also produce gold.', 2);
  assert.equal(r.status, 'blocked');
  assert.equal(ready, false);
  assert.notEqual(r.source_footer.claim_rows[0]!.support_status, 'supported');
  assert.ok(r.source_footer.royalty.escrow_amount === '10.00', 'no candidate payout for an unsupported claim');
});

test('item 1: role swaps and entity swaps do not pass', async () => {
  for (const [i, text] of ['Their hive usually forages within 3 kilometres of western honeybees.', 'Eastern bumblebees usually forage within 3 kilometres of their hive.'].entries()) {
    const { r, ready } = await outcome(text, 3 + i);
    assert.equal(r.status, 'blocked', text);
    assert.equal(ready, false);
    assert.ok(r.source_footer.claim_rows[0]!.support_score < 0.65, `${text}: ${r.source_footer.claim_rows[0]!.support_score}`);
  }
});

test('item 2: first-person knowledge and reasoning claims fail rule 10', async () => {
  for (const [i, text] of [
    `${BEES.slice(0, -1)}; I memorized this during pretraining.`,
    `My reasoning: ${BEES[0]!.toLowerCase()}${BEES.slice(1)}`,
    `Internally, I know that ${BEES[0]!.toLowerCase()}${BEES.slice(1)}`,
  ].entries()) {
    const { rules, codes } = await outcome(text, 10 + i);
    assert.ok(rules.includes(10) && codes.includes('model_reliance_claim'), text);
  }
});

test('item 3: a causal verb against correlational evidence fails rule 4', async () => {
  const { r, rules } = await outcome('Street trees lower surface temperatures in summer.', 20);
  assert.equal(r.status, 'blocked');
  assert.ok(rules.includes(4));
  assert.ok(r.source_footer.claim_rows[0]!.warrant_mismatch_flags.includes('relation_causal_from_correlational'));
});

test('item 4: digits of other scripts are citation markers, and invisible controls never reach the display', async () => {
  const arabic = await outcome(`${BEES.slice(0, -1)} [\u0669].`, 30);
  assert.ok(arabic.rules.includes(1) && arabic.codes.includes('unresolved_citation_marker'));
  const hidden = await outcome('Western honeybees usually forage within 3 kilometres of their \u202Ehive\u200B.', 31);
  assert.equal(hidden.r.display.answer_text, BEES);
  assert.doesNotMatch(hidden.r.display.rendered_text, /[\u200B\u202E]/u);
  assert.equal(hidden.r.status, 'ready', 'stripped of its controls the sentence is the grounded one');
  const fullWidth = await outcome(`${BEES.slice(0, -1)} \uFF3B\uFF11\uFF3D.`, 32);
  assert.equal(fullWidth.r.display.answer_text, `${BEES.slice(0, -1)} [1].`);
  assert.equal(fullWidth.r.status, 'ready');
});

test('item 4: a response whose answer text holds invisible controls fails verification', async () => {
  const { r } = await outcome(BEES, 33);
  const forged = structuredClone(r);
  forged.display.answer_text = BEES.replace('hive', 'hi\u200Bve');
  const report = verifyAttributionResponse(forged);
  assert.equal(report.production_display_ready, false);
  assert.ok(report.errors.some((e) => e.code === 'answer_not_normalized'));
});

test('item 5: a link-only sentence to a verified source is not a claim', async () => {
  const { r, ready } = await outcome(`${BEES} See [the bee study](${BEE_URI}).`, 40);
  assert.equal(r.status, 'ready');
  assert.equal(ready, true);
  assert.equal(r.source_footer.claim_rows.length, 1);
  const claimy = await outcome(`${BEES} See [honeybees produce gold](${BEE_URI}).`, 41);
  assert.equal(claimy.r.status, 'blocked', 'link text that states something is a claim');
});
