/**
 * Decision 166: a year or figure in the cited source's title is on display
 * with the evidence (the footer's source row), for the support check and for
 * rule 4, and the response verifier re-derives the same flags from the
 * footer's source row.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createAttributionEngine, verifyAttributionResponse } from '../../../src/attr/engine/index.ts';
import { parseCorpus } from '../../../src/attr/corpus/load-corpus.ts';
import { sourceContentSha256 } from '../../../src/attr/corpus/content-hash.ts';
import { clone, context, reseal } from './fixtures.ts';

function engineWith(title: string) {
  const chunks = [
    { chunk_id: 'c1', text: 'Of the adults asked in the harbour towns, 81% reported good health. The coastal board ran the survey by telephone.' },
  ];
  const line = JSON.stringify({
    schema: 'attr-corpus-source/v1', source_id: 'harbour-survey', work_id: 'work-harbour-survey', title,
    uri: 'https://www.example.org/harbour-survey', rights_holder: { id: 'rh-coastal-board', name: 'Coastal board' },
    royalty_terms: { license: 'CC-BY-4.0', royalty_eligible: true }, published_at: null, updated_at: null,
    chunks, content_sha256: sourceContentSha256(chunks),
  });
  return createAttributionEngine(parseCorpus(line));
}

const CLAIM = 'A 2015 survey by the coastal board found that 81% of adults in the harbour towns reported good health.';

test('a year given only in the source title supports the claim, and the verifier agrees', () => {
  const r = engineWith('Harbour Towns Health Survey 2015').attribute({ prompt: 'health', output: CLAIM, grossRevenue: '10.00', context: context(1) });
  assert.equal(r.status, 'ready');
  assert.deepEqual(r.source_footer.claim_rows[0]!.warrant_mismatch_flags, []);
  const report = verifyAttributionResponse(r);
  assert.equal(report.internally_consistent, true);
  assert.equal(report.production_display_ready, true);
});

test('without the year in the title, or with another year, the claim is not ready', () => {
  for (const [i, title] of ['Harbour Towns Health Survey', 'Harbour Towns Health Survey 2014'].entries()) {
    const r = engineWith(title).attribute({ prompt: 'health', output: CLAIM, grossRevenue: '10.00', context: context(2 + i) });
    assert.equal(r.status, 'blocked', title);
    assert.notEqual(r.source_footer.claim_rows[0]!.support_status, 'supported', title);
    assert.equal(verifyAttributionResponse(r).production_display_ready, false, title);
  }
});

test('the verifier reads the title from the footer: a source row whose title loses the year contradicts the declared flags', () => {
  const r = clone(engineWith('Harbour Towns Health Survey 2015').attribute({ prompt: 'health', output: CLAIM, grossRevenue: '10.00', context: context(4) }));
  r.source_footer.source_rows[0]!.title = 'Harbour Towns Health Survey';
  const report = verifyAttributionResponse(reseal(r));
  assert.equal(report.production_display_ready, false);
  assert.ok(report.errors.some((e) => e.code === 'warrant_profile_mismatch' && e.rule === 4 && e.subject === 'C1'));
});
