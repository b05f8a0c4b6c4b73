import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contentTokens, eachContentToken, stem, tokenSpans } from './tokenizer.ts';

test('tokens are lower-cased Porter stems and normalised numbers, without stop words or possessives', () => {
  assert.deepEqual(contentTokens("The bees' hive's 1,000 foragers boiled 3.50 litres; Dr. Reyes's notes don't vary."), [
    'bee', 'hive', '1000', 'forag', 'boil', '3.50', 'litr', 'dr', 'rey', 'note', 'dont', 'vari',
  ]);
  assert.deepEqual(['flies', 'classes', 'foraging', 'forages', 'foraged', 'relational', 'generalization', '42s'].map(stem), [
    'fli', 'class', 'forag', 'forag', 'forag', 'relat', 'gener', '42s',
  ]);
});

test('number words meet digits, and digits of any script and compatibility forms are folded', () => {
  assert.deepEqual(contentTokens('It took five years and twenty days.'), ['took', '5', 'year', '20', 'dai']);
  assert.deepEqual(contentTokens('٣ kilometres, ３ ﬁelds'), ['3', 'kilometr', '3', 'field']);
});

test('token spans keep offsets and capitalisation', () => {
  const spans = tokenSpans('Eastern bumblebees forage near Lyon in 2019.');
  assert.deepEqual(spans.map((s) => [s.term, s.capitalized, s.number]), [
    ['eastern', true, false], ['bumblebe', false, false], ['forag', false, false], ['near', false, false], ['lyon', true, false], ['2019', false, true],
  ]);
  assert.equal('Eastern bumblebees forage near Lyon in 2019.'.slice(spans[4]!.start, spans[4]!.end), 'Lyon');
});

test('an ordinal is its number', () => {
  assert.deepEqual(contentTokens('On April 9th, the 400th anniversary, 21st and 2nd.'), ['april', '9', '400', 'anniversari', '21', '2']);
});

test('eachContentToken reports capitals and the sentence-initial token', () => {
  const seen: Array<[string, boolean, boolean]> = [];
  eachContentToken('"Instead of Paris, they chose rome."', (t, c, f) => seen.push([t, c, f]));
  assert.deepEqual(seen, [['instead', true, true], ['pari', true, false], ['chose', false, false], ['rome', false, false]]);
});

test('accents on Latin letters are dropped, marks of other scripts are kept', () => {
  assert.deepEqual(contentTokens('Québec, Étaples, Bündchen'), contentTokens('Quebec, Etaples, Bundchen'));
  assert.deepEqual(contentTokens('Αθήνα'), ['αθήνα']);
});

test('an abbreviated month next to a figure is the month', () => {
  assert.deepEqual(contentTokens('Nov 10, 2018 and 4 Sept. 2013'), contentTokens('November 10, 2018 and 4 September 2013'));
  assert.deepEqual(contentTokens('The dec and the mar'), ['dec', 'mar']);
});

test('a hyphenated tens-and-unit number word is one number', () => {
  assert.deepEqual(contentTokens('Sixty-Six Books by sixty-six writers, twenty days'), ['66', 'book', '66', 'writer', '20', 'dai']);
});

test('with compounds, a hyphenated pair of words is also read as one word (evidence side)', () => {
  assert.deepEqual(tokenSpans('the 6th Ibero-American chess championship', true).map((s) => s.term), ['6', 'iberoamerican', 'ibero', 'american', 'chess', 'championship']);
  assert.deepEqual(tokenSpans('the 6th Ibero-American chess championship').map((s) => s.term), ['6', 'ibero', 'american', 'chess', 'championship']);
  // Only a pair: the words of a longer chain stay apart.
  assert.deepEqual(tokenSpans('A state-of-the-art arena', true).map((s) => s.term), ['state', 'art', 'arena']);
  const seen: string[] = [];
  eachContentToken('her co-star', (t) => seen.push(t), true);
  assert.deepEqual(seen, ['costar', 'co', 'star']);
});

test('an ordinal word is matched as its figure but is not a checked number', () => {
  assert.deepEqual(contentTokens('the fifteenth century, the 15th century'), ['15', 'centuri', '15', 'centuri']);
  assert.deepEqual(tokenSpans('the sixth season').map((s) => [s.term, s.number]), [['6', false], ['season', false]]);
  // "first" and "second" stay words.
  assert.deepEqual(contentTokens('at first, a second'), ['first', 'second']);
});
