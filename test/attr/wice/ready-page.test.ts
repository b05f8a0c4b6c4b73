/**
 * The ready-page classifier of the WiCE runner on hand-made outcomes: a
 * ready claim is grounded on its own row's page only when every claim row
 * cites that page.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readyPage, readyPageCounts, type ReadyPageOutcome } from './ready-page.ts';

test('a claim whose every claim row cites its own page is ready on its own page', () => {
  assert.equal(readyPage('wice-7', ['wice-7']), 'own');
  assert.equal(readyPage('wice-7', ['wice-7', 'wice-7']), 'own');
});

test('a claim whose claim rows cite its own page and another is mixed', () => {
  assert.equal(readyPage('wice-7', ['wice-7', 'wice-12']), 'mixed');
  assert.equal(readyPage('wice-7', ['wice-12', 'wice-7', 'wice-7']), 'mixed');
});

test('a claim none of whose claim rows cites its own page is ready on another page', () => {
  assert.equal(readyPage('wice-7', ['wice-12']), 'other');
  assert.equal(readyPage('wice-7', ['wice-12', 'wice-70']), 'other');
  // A source id is compared whole: wice-70 is not wice-7.
  assert.equal(readyPage('wice-7', ['wice-70']), 'other');
  // A row without a source does not cite the own page, nor does a footer without rows.
  assert.equal(readyPage('wice-7', [null]), 'other');
  assert.equal(readyPage('wice-7', ['wice-7', null]), 'mixed');
  assert.equal(readyPage('wice-7', []), 'other');
});

test('the tally counts ready outcomes per label and page, and leaves blocked ones out', () => {
  const outcomes: ReadyPageOutcome[] = [
    { label: 'supported', status: 'ready', readyOn: 'own' },
    { label: 'supported', status: 'ready', readyOn: 'own' },
    { label: 'supported', status: 'ready', readyOn: 'other' },
    { label: 'supported', status: 'blocked', readyOn: null },
    { label: 'partially_supported', status: 'ready', readyOn: 'mixed' },
    { label: 'partially_supported', status: 'blocked', readyOn: null },
    { label: 'not_supported', status: 'blocked', readyOn: null },
  ];
  assert.deepEqual(readyPageCounts(outcomes), {
    supported: { ready: 3, own: 2, mixed: 0, other: 1 },
    partially_supported: { ready: 1, own: 0, mixed: 1, other: 0 },
    not_supported: { ready: 0, own: 0, mixed: 0, other: 0 },
  });
});

test('a ready outcome without a ready page is refused rather than counted', () => {
  assert.throws(() => readyPageCounts([{ label: 'not_supported', status: 'ready', readyOn: null }]), /no ready page/);
});
