import { test } from 'node:test';
import assert from 'node:assert/strict';
import { warrantMismatchFlags, warrantProfile } from './warrant-profile.ts';

test('a hedged source does not warrant an unhedged claim', () => {
  assert.deepEqual(warrantMismatchFlags('Coffee reduces fatigue.', 'Coffee may reduce fatigue.'), ['modality_stronger_than_evidence']);
});

test('a numeric value absent from the evidence is flagged, a citation number is not', () => {
  assert.deepEqual(warrantMismatchFlags('It weighs 12 kg [1].', 'It weighs 12 kg.'), []);
  assert.deepEqual(warrantMismatchFlags('It weighs 15 kg.', 'It weighs 12 kg.'), ['numeric_value_not_in_evidence']);
});

test('present-tense wording is flagged against dated evidence', () => {
  assert.ok(warrantMismatchFlags('Currently 40 towns print books.', 'In 1500, 40 towns printed books.').includes('temporal_present_from_dated_evidence'));
});

test('the profile reads each dimension of force', () => {
  assert.deepEqual(warrantProfile('All bees probably cause about 3 outbreaks.'), {
    relation: 'causal', modality: 'probable', scope: 'universal', temporal: 'atemporal', numeric: 'approximate',
  });
});

test('verbs of effect are causal, and a causal word inside a correlational phrase is not', () => {
  assert.deepEqual(warrantMismatchFlags('Street trees lower surface temperatures in summer.', 'Street trees are associated with lower surface temperatures in summer.'), [
    'relation_causal_from_correlational',
  ]);
  assert.equal(warrantProfile('Exercise is linked to a reduced risk.').relation, 'correlational');
  assert.equal(warrantProfile('Streets with trees have lower surface temperatures.').relation, 'descriptive');
  assert.equal(warrantProfile('Exercise reduces the risk.').relation, 'causal');
});

test('a hedge in a neighbouring sentence of the evidence span does not weaken an unrelated claim, one in the carrying sentence does', () => {
  const span = 'Western honeybees usually forage within 3 kilometres of their hive. Bumblebee colonies may be smaller in cold years.';
  assert.deepEqual(warrantMismatchFlags('Western honeybees usually forage within 3 kilometres of their hive.', span), []);
  assert.deepEqual(warrantMismatchFlags('Bumblebee colonies are smaller in cold years.', span), ['modality_stronger_than_evidence']);
});

test('approximation and bounds qualify a figure, not any use of the word', () => {
  assert.equal(warrantProfile('Released around the world on 6 March.').numeric, 'exact');
  assert.equal(warrantProfile('Under the leadership of the premier, 40 towns printed books.').numeric, 'exact');
  assert.equal(warrantProfile('The panel dates from c. 1891.').numeric, 'none');
  assert.equal(warrantProfile('It holds c. 40 panels.').numeric, 'approximate');
  assert.equal(warrantProfile('It holds about 40 panels.').numeric, 'approximate');
  assert.equal(warrantProfile('It holds more than forty panels.').numeric, 'bounded');
  assert.deepEqual(warrantMismatchFlags('It holds 40 panels.', 'It holds about 40 panels.'), ['numeric_precision_stronger_than_evidence']);
});

test('number words and year ranges are read as the figures they write', () => {
  assert.deepEqual(warrantMismatchFlags('Only 3 players may enter.', 'Only three players may enter.'), []);
  assert.deepEqual(warrantMismatchFlags('Only 4 players may enter.', 'Only three players may enter.'), ['numeric_value_not_in_evidence']);
  assert.deepEqual(warrantMismatchFlags('It takes place in the 2018–19 year.', 'It takes place in the 2018-2019 year.'), []);
  assert.deepEqual(warrantMismatchFlags('It takes place in the 2018–20 year.', 'It takes place in the 2018-2019 year.'), ['temporal_year_not_in_evidence']);
});

test('the month May is not the modal, and an obligation is not certainty', () => {
  assert.equal(warrantProfile('He was born on 28 May 1821 in Kent.').modality, 'asserted');
  assert.equal(warrantProfile('The tour opened in May 2019.').modality, 'asserted');
  assert.equal(warrantProfile('The tour may open in 2019.').modality, 'possible');
  assert.equal(warrantProfile('May the tour open soon?').modality, 'possible');
  assert.equal(warrantProfile('All public schools must desegregate.').modality, 'asserted');
  assert.equal(warrantProfile('The flood must have reached the town.').modality, 'certain');
});

test('a hedged sentence that only repeats what an unhedged one says does not weaken the evidence', () => {
  const span = 'The law applies to public and private sector unions. That law might have been unpopular with private sector unions.';
  assert.deepEqual(warrantMismatchFlags('The law applies to private sector unions.', span), []);
  // The hedged sentence is the only one that says what the claim adds: the hedge counts.
  assert.deepEqual(warrantMismatchFlags('The law was unpopular with private sector unions.', span), ['modality_stronger_than_evidence']);
});

test('when no sentence holds a quarter of a long claim, the sentences holding most of it carry it', () => {
  const span = 'The expedition found a microbe in the lake that eats hydrogen. Life elsewhere might look like it. Comets could carry it.';
  assert.deepEqual(warrantMismatchFlags('The expedition did find several new strains of microorganisms in the lake waters, including a microbe that eats hydrogen, during its long winter survey.', span), []);
});

test('a hyphenated number word is one figure', () => {
  assert.deepEqual(warrantMismatchFlags('It has 66 writers.', 'It has sixty-six writers.'), []);
  assert.deepEqual(warrantMismatchFlags('It has 60 writers.', 'It has sixty-six writers.'), ['numeric_value_not_in_evidence']);
});

test('a sentence sharing one word with a short claim does not carry it', () => {
  const span = 'Members should not use tobacco or alcohol. Visitors may bring guests, allowing outsiders in.';
  assert.deepEqual(warrantMismatchFlags('Tobacco and alcohol are not allowed.', span), []);
  // The hedged sentence holds two of the claim's words: it carries the claim, and its hedge counts.
  assert.deepEqual(warrantMismatchFlags('Visitors are allowed to bring guests.', span), ['modality_stronger_than_evidence']);
});

test('scope is judged on the words a scope word governs', () => {
  // The claim's "never" governs "identified"; a sentence about the man that says nothing of all time narrows nothing.
  const bodies = 'The bodies found in Notts have never been identified. The remains of a man were found in a caravan in 2014.';
  assert.deepEqual(warrantMismatchFlags('The man found in the caravan has never been identified.', bodies), []);
  // "all" governs "public schools in the country": evidence about public schools without "all" is narrower.
  assert.deepEqual(warrantMismatchFlags('All public schools in the country must desegregate.', 'Segregation in public schools was unconstitutional.'), ['scope_broader_than_evidence']);
  // The evidence's own scope word narrows the words it governs…
  assert.deepEqual(warrantMismatchFlags('Bees forage within 3 kilometres.', 'Some bees forage within 3 kilometres.'), ['scope_broader_than_evidence']);
  // …and nothing else: "several physicians" says nothing about how many students volunteer.
  assert.deepEqual(warrantMismatchFlags('Students volunteer at the clinics.', 'Students volunteer at the clinics, and several physicians supervise them.'), []);
});

test('a hedge weakens the clause it stands in, not the rest of the sentence', () => {
  const claim = 'The permit covers hiking, camping and fishing trips.';
  const hedgedElsewhere = 'The permit covers hiking and camping in the park. The permit might not have been issued without a review, a rule that applied to fishing trips as well.';
  assert.deepEqual(warrantMismatchFlags(claim, hedgedElsewhere), []);
  const hedgedHere = 'The permit covers hiking and camping in the park. The permit might cover fishing trips as well.';
  assert.deepEqual(warrantMismatchFlags(claim, hedgedHere), ['modality_stronger_than_evidence']);
  // One sentence: the hedged clause is the one that holds the claim's words.
  assert.deepEqual(warrantMismatchFlags('The law applies to unions.', 'The law applies to unions, though it may be repealed.'), []);
  assert.deepEqual(warrantMismatchFlags('The law applies to unions.', 'The law may apply to unions, lawyers said.'), ['modality_stronger_than_evidence']);
});

test('an ordinal word is the figure its digits write', () => {
  assert.deepEqual(warrantMismatchFlags('She earned 5 Oscar nominations.', 'She earned her fifth Oscar nomination.'), []);
  assert.deepEqual(warrantMismatchFlags('It began in the 15th century.', 'It began in the fifteenth century.'), []);
  assert.deepEqual(warrantMismatchFlags('It began in the 16th century.', 'It began in the fifteenth century.'), ['numeric_value_not_in_evidence']);
});

test('a hedge acts on the words after it in its clause, not on what the clause said before it (decision 166)', () => {
  const span = 'The Leeds panel is the finest of the copies and was probably painted in 1600.';
  // "finest of the copies" stands before "probably": it is said outright.
  assert.deepEqual(warrantMismatchFlags('The Leeds panel is the finest of the copies.', span), []);
  // "painted in 1600" stands after it: hedged.
  assert.deepEqual(warrantMismatchFlags('The Leeds panel was painted in 1600.', span), ['modality_stronger_than_evidence']);
  // A hedge with nothing after it acts on its clause; one alone in its clause on the whole sentence.
  assert.deepEqual(warrantMismatchFlags('The ferry crossed the bay at night.', 'The ferry crossed the bay at night, probably.'), ['modality_stronger_than_evidence']);
  assert.deepEqual(warrantMismatchFlags('The ferry crossed the bay at night.', 'That the ferry crossed the bay at night is likely.'), ['modality_stronger_than_evidence']);
  // A modal before the verb still hedges what the sentence says.
  assert.deepEqual(warrantMismatchFlags('The tonic cures the cough.', 'The tonic may cure the cough.'), ['modality_stronger_than_evidence']);
});

test('reported speech hedges: "reportedly", "allegedly"… are probable, on either side (decision 166)', () => {
  assert.equal(warrantProfile('The mayor reportedly resigned.').modality, 'probable');
  assert.equal(warrantProfile('The clerk allegedly took the money.').modality, 'probable');
  // Evidence that only reports it does not warrant a plain statement…
  assert.deepEqual(warrantMismatchFlags('The mayor resigned in March.', 'The mayor reportedly resigned in March.'), ['modality_stronger_than_evidence']);
  // …and a claim that itself reports it is not stronger than "generally considered".
  assert.deepEqual(warrantMismatchFlags('The players reportedly considered the coach a calming presence.', 'The players generally considered the coach a calming presence.'), []);
  // It stays stronger than a possibility.
  assert.deepEqual(warrantMismatchFlags('The mayor reportedly resigned in March.', 'The mayor may have resigned in March.'), ['modality_stronger_than_evidence']);
});

test('a word the claim points at with "these"/"those"/"this" is not made broader by "several" in the evidence (decision 166)', () => {
  const evidence = 'Nursing students gain practice at several rural clinics.';
  // A bare plural reads as the class: "several rural clinics" is narrower.
  assert.deepEqual(warrantMismatchFlags('Rural clinics give nursing students practice.', evidence), ['scope_broader_than_evidence']);
  // "These clinics" are particular clinics the text already named.
  assert.deepEqual(warrantMismatchFlags('These clinics give nursing students practice.', evidence), []);
  // A scope word of the claim's own still governs them.
  assert.deepEqual(warrantMismatchFlags('All these clinics give nursing students practice.', evidence), ['scope_broader_than_evidence']);
});

test('what a claim sets aside with "instead of"/"rather than" is not hedged by the evidence (decision 166)', () => {
  const evidence = 'Although Mira could have joined the city choir, she decided to sing with the harbour band.';
  // The claim does not say she joined the choir: "could have joined" hedges nothing it asserts.
  assert.deepEqual(warrantMismatchFlags('Instead of joining the city choir, Mira decided to sing with the harbour band.', evidence), []);
  assert.deepEqual(warrantMismatchFlags('Mira decided to sing with the harbour band rather than join the city choir.', evidence), []);
  // A claim that says she joined it is stronger than "could have joined".
  assert.deepEqual(warrantMismatchFlags('Mira joined the city choir.', evidence), ['modality_stronger_than_evidence']);
  // A word the claim also asserts outside the phrase stays asserted.
  assert.deepEqual(warrantMismatchFlags('Instead of resting, Mira joined the city choir.', evidence), ['modality_stronger_than_evidence']);
});

test("a year or figure in the cited source's title is on display with the evidence (decision 166)", () => {
  const claim = 'A 2015 survey found that 81% of adults reported good health.';
  const evidence = 'Of the adults asked, 81% reported good health.';
  assert.deepEqual(warrantMismatchFlags(claim, evidence), ['temporal_year_not_in_evidence']);
  assert.deepEqual(warrantMismatchFlags(claim, evidence, 'Coastal Health Survey 2015'), []);
  assert.deepEqual(warrantMismatchFlags(claim, evidence, 'Coastal Health Survey 2014'), ['temporal_year_not_in_evidence']);
  assert.deepEqual(warrantMismatchFlags('Of the 40 adults asked, 81% reported good health.', evidence, 'Survey of Adults'), ['numeric_value_not_in_evidence']);
  assert.deepEqual(warrantMismatchFlags('Of the 40 adults asked, 81% reported good health.', evidence, 'Survey of Forty Adults'), []);
  // Only its figures count: a hedge in the title does not weaken the evidence, nor does its scope narrow it.
  assert.deepEqual(warrantMismatchFlags(claim, evidence, 'Health may have improved in 2015'), []);
});

test('"each" is universal, "each other" is not (decision 197)', () => {
  assert.equal(warrantProfile('Each race of the series is unique in its obstacles.').scope, 'universal');
  assert.equal(warrantProfile('The two teams played each other twice.').scope, 'unspecified');
  // A claim about each event against evidence about one of them is broader than its evidence.
  assert.deepEqual(
    warrantMismatchFlags('Each winter race of the series is held on a new course.', 'The winter race of the series at Lake Grove is held on a new course.'),
    ['scope_broader_than_evidence'],
  );
  assert.deepEqual(warrantMismatchFlags('Each winter race of the series is held on a new course.', 'Every winter race of the series is held on a new course.'), []);
  assert.deepEqual(warrantMismatchFlags('The rivals met each other in the final.', 'The rivals met in the final.'), []);
});

test('a year or day the evidence gives relative to its own dateline is in the evidence (decision 207)', () => {
  const evidence = 'December 20, 2018 10:04AM PT\nThe league announced twelve matches, with the first planned for June.';
  assert.deepEqual(warrantMismatchFlags('The league announced twelve matches, the first in June 2019.', evidence), []);
  assert.ok(warrantMismatchFlags('The league announced twelve matches, the first in June 2020.', evidence).includes('temporal_year_not_in_evidence'));
  const weekday = 'By Ann Reed on March 2, 2017\nThe panel narrowed the list to three Wednesday evening.';
  assert.deepEqual(warrantMismatchFlags('On March 1, 2017 the panel narrowed the list to three.', weekday), []);
  assert.ok(warrantMismatchFlags('On March 4, 2017 the panel narrowed the list to three.', weekday).includes('numeric_value_not_in_evidence'));
  // The claim's own relative words are not resolved for it: only the evidence's count as evidence.
  assert.ok(warrantMismatchFlags('On March 2, 2017 the panel said it narrowed the list Wednesday.', 'The panel narrowed the list in 2017.').includes('numeric_value_not_in_evidence'));
});
