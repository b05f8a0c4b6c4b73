/**
 * The adversarial grounding suite (issue 18): hand-written answers over the
 * example corpus that try to get something unsupported shown: clause
 * riders, role and entity swaps, changed figures and dates, negation,
 * causal and hedging force, model-reliance wordings, Unicode tricks and
 * citation or link forgeries. Every one must come back `blocked`, and the
 * response verifier must agree it is not production-display-ready.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { verifyAttributionResponse } from '../../../src/attr/engine/index.ts';
import { attribute } from '../engine/fixtures.ts';

interface AdversarialCase {
  id: string;
  kind: string;
  output: string;
  why: string;
}

const { cases } = JSON.parse(readFileSync(new URL('./adversarial-cases.json', import.meta.url), 'utf8')) as { cases: AdversarialCase[] };

test('the suite holds at least 200 cases of at least ten kinds, with unique ids', () => {
  assert.ok(cases.length >= 200, `${cases.length} cases`);
  assert.ok(new Set(cases.map((c) => c.kind)).size >= 10);
  assert.equal(new Set(cases.map((c) => c.id)).size, cases.length);
});

test('every adversarial answer is blocked, and the verifier refuses it for display', async () => {
  const leaks: string[] = [];
  for (const [i, c] of cases.entries()) {
    const r = await attribute(c.output, '10.00', 9000 + i);
    const report = verifyAttributionResponse(r);
    if (r.status !== 'blocked' || report.production_display_ready) leaks.push(`${c.id} (${c.why}): ${r.status}`);
    // Blocked for audit still means internally consistent: the verifier re-derives the same findings.
    if (!report.internally_consistent) leaks.push(`${c.id}: response not internally consistent (${report.errors.map((e) => e.code).join(', ')})`);
  }
  assert.deepEqual(leaks, []);
});

test('nothing invisible from an adversarial answer reaches display.rendered_text', async () => {
  for (const [i, c] of cases.filter((x) => x.kind === 'unicode').entries()) {
    const r = await attribute(c.output, '10.00', 9500 + i);
    assert.doesNotMatch(r.display.rendered_text, /[\u00AD\u061C\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u206F\uFEFF]/u, c.id);
  }
});
