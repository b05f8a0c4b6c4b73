import { test } from 'node:test';
import assert from 'node:assert/strict';
import { segmentSentences } from './sentence-segmenter.ts';

const texts = (s: string) => segmentSentences(s).map((x) => x.text);

test('titles, months and Latin abbreviations do not end a sentence', () => {
  assert.deepEqual(texts('Dr. Reyes arrived on Jan. 5 with samples, e.g. basalt. She left on Feb. 2.'), [
    'Dr. Reyes arrived on Jan. 5 with samples, e.g. basalt.',
    'She left on Feb. 2.',
  ]);
});

test('decimals and URLs stay inside their sentence', () => {
  assert.deepEqual(texts('The dose was 3.5 mg per day. See https://example.org/a.b?c=1 for details. Done.'), [
    'The dose was 3.5 mg per day.',
    'See https://example.org/a.b?c=1 for details.',
    'Done.',
  ]);
});

test('citation markers after the full stop stay with the sentence they cite', () => {
  assert.deepEqual(texts('Water boils at 100 °C. [1] [Source: 2] Ice melts at 0 °C [3]. Next one.'), [
    'Water boils at 100 °C. [1] [Source: 2]',
    'Ice melts at 0 °C [3].',
    'Next one.',
  ]);
});

test('initials and a lower-case continuation do not split', () => {
  assert.deepEqual(texts('J. R. R. Tolkien wrote it. It was approx. ten pages long.'), ['J. R. R. Tolkien wrote it.', 'It was approx. ten pages long.']);
});

test('line breaks end units and list bullets are not part of them', () => {
  const segs = segmentSentences('Intro line\n- first item\n2. second item');
  assert.deepEqual(segs.map((s) => s.text), ['Intro line', 'first item', 'second item']);
  assert.equal('Intro line\n- first item\n2. second item'.slice(segs[1]!.start, segs[1]!.end), 'first item');
});

test('question and exclamation marks end sentences', () => {
  assert.deepEqual(texts('Is it hot? Yes! It is.'), ['Is it hot?', 'Yes!', 'It is.']);
});

test('an exclamation or question mark followed by a lower-case word does not end the sentence', () => {
  assert.deepEqual(texts('They covered it for the "Kerrang!" release of 2006. Was it "Who\'s Buying?" again? Yes.'), [
    'They covered it for the "Kerrang!" release of 2006.',
    'Was it "Who\'s Buying?" again?',
    'Yes.',
  ]);
});

test('an initialism inside a short quoted title does not end the sentence; a quoted sentence going on after one still does (decision 202)', () => {
  assert.deepEqual(texts('The critic of "The Q.R. Review" praised it. Then she left.'), ['The critic of "The Q.R. Review" praised it.', 'Then she left.']);
  assert.deepEqual(texts('He read “U.S. News & World Report” daily.'), ['He read “U.S. News & World Report” daily.']);
  // Outside quotes, or where lower-case words follow inside them, the initialism ends the sentence as before.
  assert.deepEqual(texts('He moved to the U.S. Then he left.'), ['He moved to the U.S.', 'Then he left.']);
  assert.deepEqual(texts('She said "we went to the U.S. It was great" and left.'), ['She said "we went to the U.S.', 'It was great" and left.']);
});
