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

test('with compounds, words a scraped page glued together are also read apart (evidence side)', () => {
  // "NewsOPINIONApril 11 2019": a navigation bar run into a dateline; the month is there to be found.
  assert.deepEqual(tokenSpans('HomeNewsOPINIONApril 11 2019', true).map((s) => s.term), ['homenewsopinionapril', 'home', 'new', 'opinion', 'april', '11', '2019']);
  assert.deepEqual(tokenSpans('Photo CreditMarta Ruiz', true).map((s) => s.term), ['photo', 'creditmarta', 'credit', 'marta', 'ruiz']);
  // A name with an inner capital after one or two letters is one word.
  assert.deepEqual(tokenSpans('McDonald, DiCaprio and an iPhone', true).map((s) => s.term), ['mcdonald', 'dicaprio', 'iphon']);
  // The claim side keeps the word whole.
  assert.deepEqual(tokenSpans('HomeNewsOPINIONApril').map((s) => s.term), ['homenewsopinionapril']);
  const text = 'Photo CreditMarta Ruiz';
  const marta = tokenSpans(text, true).find((s) => s.term === 'marta')!;
  assert.equal(text.slice(marta.start, marta.end), 'Marta');
  assert.equal(marta.capitalized, true);
});

test('a day or month written with a leading zero is its number, a clock time keeps its zeros', () => {
  assert.deepEqual(contentTokens('05 August 2019'), ['5', 'august', '2019']);
  assert.deepEqual(contentTokens('August 5, 2019'), ['august', '5', '2019']);
  assert.deepEqual(contentTokens('0.5 and 0'), ['0.5', '0']);
  // "08:00" is a time of day, not eight of something.
  assert.deepEqual(contentTokens('Feb 12, 2009 08:00'), ['februari', '12', '2009', '08', '00']);
});

test('an ISO date is its year, its month by name and its day', () => {
  assert.deepEqual(contentTokens('Published 2016-08-25'), ['publish', '2016', 'august', '25']);
  assert.deepEqual(contentTokens('Published August 25, 2016'), ['publish', 'august', '25', '2016']);
  // A full timestamp keeps its hour (a clock part, with its zero) and drops the "Z" of UTC.
  assert.deepEqual(contentTokens('2018-06-30T07:00:00Z'), ['2018', 'june', '30', '07', '00', '00']);
  assert.deepEqual(contentTokens('2018-06-30T07:00:00Z'), contentTokens('2018-06-30 07:00:00'));
  // Not a date: a year range, or a month or day out of range.
  assert.deepEqual(contentTokens('the 2018-19 season, code 2018-13-40'), ['2018', '19', 'season', 'code', '2018', '13', '40']);
});

test('"U.S." and "US" are the country, as "USA" is; the pronoun "us" and an all-caps "US" stay stop words', () => {
  assert.deepEqual(contentTokens('the U.S. Army, US troops, the U.S.A.'), ['usa', 'armi', 'usa', 'troop', 'usa']);
  assert.deepEqual(contentTokens('Join us. CONTACT US | ABOUT US'), ['join', 'contact']);
});

test('"%" and "per cent" are "percent"; a unit or magnitude written on a figure is the figure and that word', () => {
  assert.deepEqual(contentTokens('rose 12%, 12 % or 12 per cent'), ['rose', '12', 'percent', '12', 'percent', '12', 'percent']);
  assert.deepEqual(contentTokens('rose 12 percent'), ['rose', '12', 'percent']);
  // A magnitude: "bn", "mn", "k", and "m" after a currency sign.
  assert.deepEqual(contentTokens('€1.5m, $2bn, £3.2 bn and 40K seats'), contentTokens('€1.5 million, $2 billion, £3.2 billion and 40 thousand seats'));
  // A unit: as if written apart ("100m" drops its one letter, as "100 m" does).
  assert.deepEqual(contentTokens('a 5km walk, a 3.5mm jack, the 100m final'), contentTokens('a 5 km walk, a 3.5 mm jack, the 100 m final'));
  // Other letters keep the figure whole: "3b" is not "3a", a decade is not a unit.
  assert.deepEqual(contentTokens('Figure 3b, the 1990s, a 3D film'), ['figur', '3b', '1990s', '3d', 'film']);
});

test('with compounds, a host name is also read as its words (evidence side); initials and abbreviations stay whole (decision 202)', () => {
  assert.deepEqual(tokenSpans('https://news.qrreview.com/story', true).map((s) => s.term), ['http', 'newsqrreviewcom', 'new', 'qrreview', 'com', 'stori']);
  assert.deepEqual(tokenSpans('a Ph.D. in e.g. physics', true).map((s) => s.term), ['phd', 'eg', 'physic']);
  // The claim side keeps the host whole.
  assert.deepEqual(tokenSpans('news.qrreview.com').map((s) => s.term), ['newsqrreviewcom']);
});
