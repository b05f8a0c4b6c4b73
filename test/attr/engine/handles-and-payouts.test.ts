import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Decimal } from 'decimal.js';
import { AttrError } from '../../../src/attr/errors.ts';
import { attribute, READY_ANSWER, exampleEngine, context } from './fixtures.ts';

test('handles are deterministic for the same event and source, and change with the event', async () => {
  const a = await attribute(READY_ANSWER, '10.00', 21);
  const b = await attribute(READY_ANSWER, '10.00', 21);
  const c = await attribute(READY_ANSWER, '10.00', 22);
  assert.deepEqual(a.source_footer.source_rows.map((r) => r.verify), b.source_footer.source_rows.map((r) => r.verify));
  assert.equal(a.source_footer.footer_hash, b.source_footer.footer_hash);
  assert.notEqual(a.source_footer.source_rows[0]!.verify, c.source_footer.source_rows[0]!.verify);
  for (const row of a.source_footer.source_rows) assert.match(row.verify, /^attr:\/\/verify\/source-footer\/[0-9a-f]{32}$/);
});

test('payouts sum exactly to the gross revenue when it does not divide evenly', async () => {
  const answer = `${READY_ANSWER} Western honeybees communicate the direction and distance of a food source with the waggle dance.`;
  const r = await attribute(answer, '10.00', 23);
  assert.equal(r.source_footer.claim_rows.length, 3);
  const rows = r.source_footer.source_rows;
  const total = rows.reduce((s, row) => s.add(row.payout), new Decimal(r.source_footer.royalty.escrow_amount));
  assert.equal(total.toFixed(2), '10.00');
  assert.deepEqual(rows.map((row) => row.payout).sort(), ['3.33', '6.67']);
  const weights = rows.reduce((s, row) => s.add(row.weight), new Decimal(r.source_footer.royalty.escrow_weight));
  assert.equal(weights.toFixed(6), '1.000000');
});

test('zero revenue yields zero amounts with zero_amount settlement and still verifies', async () => {
  const r = await attribute(READY_ANSWER, '0', 24);
  assert.equal(r.status, 'ready');
  assert.deepEqual(r.source_footer.source_rows.map((row) => [row.payout, row.settlement_status]), [['0.00', 'zero_amount'], ['0.00', 'zero_amount']]);
});

test('revenue keeps its own precision so nothing is lost to rounding', async () => {
  const r = await attribute(READY_ANSWER, '0.001', 25);
  assert.equal(r.source_footer.royalty.amount_scale, 3);
  const sum = r.source_footer.source_rows.reduce((s, row) => s.add(row.payout), new Decimal(r.source_footer.royalty.escrow_amount));
  assert.equal(sum.toFixed(3), '0.001');
});

test('negative or malformed revenue is rejected with a typed error', async () => {
  const engine = await exampleEngine();
  assert.throws(() => engine.attribute({ prompt: 'p', output: 'x', grossRevenue: '-1.00', context: context() }), (e: unknown) => e instanceof AttrError && e.code === 'negative_revenue' && e.httpStatus === 400);
  assert.throws(() => engine.attribute({ prompt: 'p', output: 'x', grossRevenue: '1e3', context: context() }), (e: unknown) => e instanceof AttrError && e.code === 'invalid_gross_revenue');
});

test('unsupported claims send their share to escrow and candidate rows are withheld when blocked', async () => {
  const r = await attribute('Western honeybees usually forage within 3 kilometres of their hive. Honeybee colonies produce about 30 kilograms of surplus honey per year.', '10.00', 26);
  assert.equal(r.status, 'blocked');
  assert.equal(r.source_footer.royalty.escrow_amount, '5.00');
  assert.equal(r.source_footer.source_rows[0]!.settlement_status, 'withheld');
});

test('without output, the demonstration answer is deterministic and attributed', async () => {
  const engine = await exampleEngine();
  const a = engine.demoAnswer('How thick is the lunar regolith?');
  assert.equal(a, engine.demoAnswer('How thick is the lunar regolith?'));
  assert.match(a, /regolith/);
  const r = engine.attribute({ prompt: 'How thick is the lunar regolith?', grossRevenue: '1', context: context(27) });
  assert.equal(r.display.answer_text, a);
  assert.equal(r.event.answer_origin, 'demo');
  assert.equal(r.status, 'ready', JSON.stringify(r.audit_errors));
});

test('the event records hashes of prompt and answer, never their text', async () => {
  const r = await attribute(READY_ANSWER, '10.00', 28);
  const text = JSON.stringify(r.event);
  assert.ok(!text.includes('honeybees'));
  assert.match(r.event.prompt_sha256, /^[0-9a-f]{64}$/);
});
