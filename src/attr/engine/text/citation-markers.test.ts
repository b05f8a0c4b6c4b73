import { test } from 'node:test';
import assert from 'node:assert/strict';
import { findCitationMarkers } from './citation-markers.ts';
import { findLinkUris } from './links.ts';

test('numeric markers, groups and ranges expand to source labels', () => {
  const m = findCitationMarkers('a [1] b [2, 3] c [1-3] d [Source: 4] e [S5] f [C2]');
  assert.deepEqual(m.map((x) => x.labels), [['S1'], ['S2', 'S3'], ['S1', 'S2', 'S3'], ['S4'], ['S5'], ['C2']]);
});

test('bracketed years, words and Markdown link texts are not citation markers', () => {
  assert.deepEqual(findCitationMarkers('In [2021] we saw [note] and [1](https://x.org).'), []);
});

test('an inverted range is a marker that cannot be expanded', () => {
  const [m] = findCitationMarkers('x [3-1]');
  assert.equal(m?.expandable, false);
});

test('links are found in Markdown and bare form without trailing punctuation', () => {
  assert.deepEqual(findLinkUris('See [a](https://a.example/x) and ftp://b.example/y. Also https://a.example/x.'), ['https://a.example/x', 'ftp://b.example/y']);
});
