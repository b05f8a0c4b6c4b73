/**
 * A fast slice of the attr-quality bench (50 of the 349 WiCE dev rows,
 * every seventh): the hard line (no not_supported claim display-ready), a
 * floor for supported claims, a ceiling for partially supported ones, and
 * retrieval. The full split runs with `npm run bench -- attr-quality`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readWiceRows } from './wice-corpus.ts';
import { wiceDevPath, wiceSlice } from './wice-data.ts';
import { runWice } from './run-wice.ts';

const dataPath = wiceDevPath();

test('WiCE slice: no not_supported claim is display-ready, supported claims are, and retrieval finds the cited page', { skip: dataPath ? false : 'WiCE dev split not found beside the repository (../shared/data)' }, () => {
  const score = runWice(wiceSlice(readWiceRows(dataPath!)));
  assert.equal(score.ready.not_supported.total, 10);
  assert.equal(score.ready.not_supported.ready, 0, 'the hard line: a not_supported claim was display-ready');
  // Floors a little under the measured slice figures (8/14 supported, 2/26 partial, recall@1 = 1): a regression trips them.
  assert.ok(score.ready.supported.rate >= 0.5, `supported ready rate ${score.ready.supported.rate}`);
  assert.ok(score.ready.partially_supported.rate <= 0.25, `partially supported ready rate ${score.ready.partially_supported.rate}`);
  assert.ok(score.recallAt1 >= 0.9 && score.recallAt5 === 1, `recall@1 ${score.recallAt1}, recall@5 ${score.recallAt5}`);
  // Every ready claim is classified by the page it cites (ready-page.ts), and only ready claims are.
  for (const label of ['supported', 'partially_supported', 'not_supported'] as const) {
    const pages = score.readyPages[label];
    assert.equal(pages.own + pages.mixed + pages.other, score.ready[label].ready, label);
  }
  assert.ok(score.outcomes.every((o) => (o.status === 'ready') === (o.readyOn !== null)));
});
