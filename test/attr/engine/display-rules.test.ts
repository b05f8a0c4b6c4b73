import { test } from 'node:test';
import assert from 'node:assert/strict';
import { verifyAttributionResponse } from '../../../src/attr/engine/index.ts';
import { eventHash } from '../../../src/attr/footer/footer-hashes.ts';
import { attribute, clone, READY_ANSWER, reseal } from './fixtures.ts';

const codes = (r: { audit_errors: Array<{ code: string }> }) => r.audit_errors.map((e) => e.code);
const rulesOf = (r: { source_footer: { blocking_rules: number[] } }) => r.source_footer.blocking_rules;

test('a fully supported answer is ready and verifies as production-display ready', async () => {
  const r = await attribute(READY_ANSWER);
  assert.equal(r.status, 'ready', JSON.stringify(r.audit_errors));
  const v = verifyAttributionResponse(r);
  assert.equal(v.production_display_ready, true);
  assert.equal(v.source_grounding_acceptance?.status, 'passed');
  assert.equal(r.summary.grounding_verdict, 'grounded');
  assert.equal(r.summary.attribution_gap_verdict, 'closed');
});

test('rule 1: an unresolved [3] blocks, and a bracketed year is ignored', async () => {
  const bad = await attribute('Western honeybees usually forage within 3 kilometres of their hive [3].');
  assert.equal(bad.status, 'blocked');
  assert.ok(codes(bad).includes('unresolved_citation_marker'));
  const year = await attribute('Western honeybees usually forage within 3 kilometres of their hive [2021].');
  assert.equal(year.status, 'ready', JSON.stringify(year.audit_errors));
  assert.equal(verifyAttributionResponse(year).source_grounding_acceptance?.answer_citation_marker_count, 0);
});

test('rule 1: [Source: 2] fails when row S2 exists but is not verified', async () => {
  const r = await attribute(READY_ANSWER.replace('[2]', '[Source: 2]'));
  assert.equal(r.status, 'ready');
  const tampered = clone(r);
  tampered.source_footer.source_rows[1]!.verify = 'attr://verify/source-footer/00000000000000000000000000000000';
  const v = verifyAttributionResponse(reseal(tampered));
  assert.equal(v.production_display_ready, false);
  assert.deepEqual(v.source_grounding_acceptance?.unresolved_answer_citation_markers, ['[Source: 2]']);
});

test('rule 2: a link that is not a verified source URI blocks', async () => {
  const r = await attribute('Western honeybees usually forage within 3 kilometres of their hive, see https://evil.example.com/bees.');
  assert.deepEqual(rulesOf(r).includes(2), true);
  const v = verifyAttributionResponse(r);
  assert.deepEqual(v.source_grounding_acceptance?.unresolved_answer_link_uris, ['https://evil.example.com/bees']);
});

test('rule 3: a source row that no longer summarises its claim rows is caught', async () => {
  const r = clone(await attribute(READY_ANSWER));
  r.source_footer.source_rows[0]!.supported_claim_hashes = [];
  const v = verifyAttributionResponse(reseal(r));
  assert.ok(v.errors.some((e) => e.code === 'source_row_claim_mismatch'));
  assert.equal(v.production_display_ready, false);
});

test('rule 3: an evidence preview edited without its span hash is caught', async () => {
  const r = clone(await attribute(READY_ANSWER));
  r.source_footer.claim_rows[0]!.evidence_preview = 'Western honeybees always forage within 3 kilometres of their hive.';
  const v = verifyAttributionResponse(reseal(r));
  assert.ok(v.errors.some((e) => e.code === 'evidence_span_hash_mismatch'));
});

test('rules 4 and 11: a claim stronger than its evidence blocks', async () => {
  const r = await attribute('Sourdough bread causes a lower glycaemic response than bread leavened with baker\'s yeast.');
  assert.equal(r.status, 'blocked');
  assert.deepEqual(r.source_footer.claim_rows[0]!.warrant_mismatch_flags, ['relation_causal_from_correlational']);
  assert.ok(codes(r).includes('warrant_force_mismatch'));
  assert.ok(codes(r).includes('claim_overstated'));
});

test('rule 5: a visible source that contradicts a supported claim blocks', async () => {
  const r = await attribute('Most octopus species live for only one to two years.');
  assert.equal(r.status, 'blocked');
  const claim = r.source_footer.claim_rows[0]!;
  assert.equal(claim.source_disagreement_status, 'contradicted');
  assert.equal(claim.source_disagreement_profile.negation_conflict_count, 1);
  const contradicting = r.source_footer.source_rows.find((s) => s.label === claim.disagreement_source_labels[0]);
  assert.equal(contradicting?.role, 'disagreement');
  assert.ok(codes(r).includes('source_contradicts_claim'));
});

test('rule 5: a different figure for the same quantity counts as a contradiction', async () => {
  const r = await attribute('Between 2000 and 2019 the Greenland ice sheet lost about 270 billion tonnes of ice per year.');
  assert.equal(r.source_footer.claim_rows[0]!.source_disagreement_profile.numeric_conflict_count, 1);
  assert.equal(r.status, 'blocked');
});

test('rule 6: a forged handle and a handle missing from the rendered footer are both caught', async () => {
  const forged = clone(await attribute(READY_ANSWER));
  forged.source_footer.source_rows[0]!.verify = 'attr://verify/source-footer/ffffffffffffffffffffffffffffffff';
  assert.ok(verifyAttributionResponse(reseal(forged)).errors.some((e) => e.code === 'verification_handle_forged'));

  const stripped = clone(await attribute(READY_ANSWER));
  const row = stripped.source_footer.source_rows[0]!;
  stripped.source_footer.rendered_text = stripped.source_footer.rendered_text.replace(`  verify: ${row.verify}\n`, '');
  const v = verifyAttributionResponse(stripped);
  assert.equal(v.production_display_ready, false);
  assert.ok(v.errors.some((e) => e.code === 'verification_handle_missing'));
});

test('rule 7: a changed usage-metric method or event reference is caught', async () => {
  const r = clone(await attribute(READY_ANSWER));
  r.source_footer.source_rows[0]!.usage_metric_methods.support = 'model-attention/v1';
  assert.ok(verifyAttributionResponse(reseal(r)).errors.some((e) => e.code === 'usage_metric_provenance_changed'));

  const e = clone(await attribute(READY_ANSWER));
  e.event.source_references[0]!.uri = 'https://elsewhere.example.org/';
  e.event.event_hash = eventHash(e.event);
  const v = verifyAttributionResponse(e);
  assert.ok(v.errors.some((x) => x.code === 'source_reference_mismatch'));
});

test('rule 8: "latest" needs freshness metadata on every visible source row', async () => {
  const r = await attribute('The latest findings show that many theropod dinosaurs had feathers, including relatives of Velociraptor.');
  assert.ok(codes(r).includes('temporal_claim_without_freshness'));
  const dated = await attribute('The latest estimate: western honeybees usually forage within 3 kilometres of their hive.');
  assert.ok(!codes(dated).includes('temporal_claim_without_freshness'));
});

test('rule 9: claim rows must match the claim units of the answer exactly', async () => {
  const r = clone(await attribute(READY_ANSWER));
  r.display.answer_text = `${r.display.answer_text} Bees are also fond of clover.`;
  const v = verifyAttributionResponse(reseal(r));
  assert.equal(v.source_grounding_acceptance?.answer_claim_coverage_status, 'failed');
  assert.equal(v.source_grounding_acceptance?.uncovered_answer_claim_hashes.length, 1);
  const empty = await attribute('  ');
  assert.ok(codes(empty).includes('no_claim_units'));
});

test('rule 10: claims of hidden model reliance block', async () => {
  const r = await attribute('The model relied on the Apiary Institute study: western honeybees usually forage within 3 kilometres of their hive.');
  assert.ok(codes(r).includes('model_reliance_claim'));
  assert.deepEqual(verifyAttributionResponse(r).source_grounding_acceptance?.model_reliance_claim_markers, ['the model relied']);
});

test('rule 11: a supported claim whose evidence row is not rendered fails', async () => {
  const r = clone(await attribute(READY_ANSWER));
  const c = r.source_footer.claim_rows[0]!;
  r.source_footer.rendered_text = r.source_footer.rendered_text.replace(`chars ${c.evidence_start}-${c.evidence_end}`, 'chars 0-1');
  const v = verifyAttributionResponse(r);
  assert.ok(v.errors.some((e) => e.code === 'claim_evidence_row_not_rendered'));
});

test('rule 12: a claim pointing at another work or chunk than its source row fails', async () => {
  const r = clone(await attribute(READY_ANSWER));
  r.source_footer.claim_rows[0]!.chunk_id = 'c9';
  assert.ok(verifyAttributionResponse(reseal(r)).errors.some((e) => e.code === 'claim_source_mismatch'));
});

test('rule 13: a source row the event did not consume breaks coverage closure', async () => {
  const r = clone(await attribute(READY_ANSWER));
  r.event.source_references.pop();
  r.event.event_hash = eventHash(r.event);
  const v = verifyAttributionResponse(r);
  assert.equal(v.source_grounding_acceptance?.claim_source_closure_status, 'failed');
});

test('rule 14: unsupported claims and an all-escrow royalty share block', async () => {
  const r = await attribute('The Eiffel Tower was completed in 1889 for the World Fair in Paris.');
  assert.ok(codes(r).includes('claim_support_below_minimum'));
  assert.equal(r.summary.grounding_verdict, 'ungrounded');
  const orphan = await attribute('Soils formed from volcanic ash are often very fertile because the ash weathers quickly.');
  assert.ok(codes(orphan).includes('non_escrow_share_below_minimum'));
  assert.equal(orphan.source_footer.source_rows[0]!.settlement_status, 'escrow');
});

test('rule 15: copied text must equal display.rendered_text; removing the footer or a handle fails', async () => {
  const r = await attribute(READY_ANSWER);
  assert.equal(verifyAttributionResponse(r, { displayText: r.display.rendered_text }).production_display_ready, true);
  const noFooter = verifyAttributionResponse(r, { displayText: r.display.answer_text });
  assert.equal(noFooter.production_display_ready, false);
  assert.ok(noFooter.errors.some((e) => e.code === 'display_text_missing_footer'));
  const handle = r.source_footer.source_rows[0]!.verify;
  const noHandle = verifyAttributionResponse(r, { displayText: r.display.rendered_text.replace(handle, '') });
  assert.ok(noHandle.errors.some((e) => e.code === 'display_text_missing_handle'));
});

test('a blocked response discloses why and still verifies as internally consistent', async () => {
  const r = await attribute('Honeybees always forage within 3 kilometres of their hive [4].');
  assert.equal(r.status, 'blocked');
  assert.ok(r.source_footer.disclosures.length > 0);
  assert.ok(r.source_footer.rendered_text.includes('Blocked because:'));
  const v = verifyAttributionResponse(r);
  assert.equal(v.internally_consistent, true);
  assert.equal(v.production_display_ready, false);
});

test('relabelling a blocked response as ready is detected as inconsistent', async () => {
  const r = clone(await attribute('Honeybees always forage within 3 kilometres of their hive.'));
  r.status = 'ready';
  r.source_footer.status = 'ready';
  r.audit_errors = [];
  r.source_footer.blocking_rules = [];
  r.source_footer.disclosures = [];
  const v = verifyAttributionResponse(reseal(r));
  assert.equal(v.internally_consistent, false);
  assert.equal(v.integrity.status_consistent, false);
});
