import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseCorpus } from '../../corpus/load-corpus.ts';
import { sealCorpusText } from '../../corpus/seal-corpus.ts';
import { contentTokens } from '../text/tokenizer.ts';
import { CorpusIndex } from './corpus-index.ts';
import { EvidenceSearch, round4 } from './evidence-search.ts';
import { readClaim } from '../support/claim-reading.ts';
import { calibratedScore } from '../support/support-judge.ts';

function index(chunks: Record<string, string[]>): CorpusIndex {
  const lines = Object.entries(chunks).map(([id, texts]) =>
    JSON.stringify({
      schema: 'attr-corpus-source/v1', source_id: id, work_id: `w-${id}`, title: id, uri: `https://example.org/${id}`,
      rights_holder: null, royalty_terms: { license: 'l', royalty_eligible: false }, published_at: null, updated_at: null,
      chunks: texts.map((text, i) => ({ chunk_id: `c${i + 1}`, text })), content_sha256: '',
    }),
  );
  return new CorpusIndex(parseCorpus(sealCorpusText(lines.join('\n'))));
}

/** The definitions, written out over plain string sets: IDF-weighted recall and token Jaccard. */
function recall(idx: CorpusIndex, claim: string, window: string): number {
  const terms = [...new Set(contentTokens(claim))];
  const have = new Set(contentTokens(window));
  const total = terms.reduce((s, t) => s + idx.idf(t), 0);
  return terms.reduce((s, t) => s + (have.has(t) ? idx.idf(t) : 0), 0) / total;
}
function jaccard(claim: string, window: string): number {
  const a = new Set(contentTokens(claim));
  const b = new Set(contentTokens(window));
  const inter = [...a].filter((t) => b.has(t)).length;
  return inter / (a.size + b.size - inter);
}

const FILLER = { f1: ['Rivers carry sediment to the sea.'], f2: ['Mountains erode over millions of years.'], f3: ['Clouds form from water vapour.'] };

test('the evidence window is the sentence with the highest IDF-weighted recall of the claim, and its support the calibrated recall', () => {
  const idx = index({
    bees: ['Honeybees visit flowers for nectar. Western honeybees forage within 3 kilometres of the hive. Wasps hunt insects.'],
    ...FILLER,
  });
  const claim = 'Western honeybees forage within 3 kilometres of their hive.';
  const found = new EvidenceSearch(idx, 8).search(readClaim(claim));
  assert.equal(found.primary?.text, 'Western honeybees forage within 3 kilometres of the hive.');
  assert.deepEqual(found.primary?.checks, []);
  assert.equal(found.primary?.support, round4(calibratedScore(found.primary!.recall)));
  assert.equal(found.primary?.recall, round4(recall(idx, claim, found.primary!.text)));
  assert.equal(found.primary?.textMatch, round4(jaccard(claim, found.primary!.text)));
});

test('two sentences form the window when together they add enough recall, and text match covers both', () => {
  const idx = index({ tea: ['Black tea is brewed from oxidised leaves. A cup holds about 47 milligrams of caffeine. Green tea is not oxidised.'], ...FILLER });
  const claim = 'Brewed black tea from oxidised leaves holds about 47 milligrams of caffeine.';
  const found = new EvidenceSearch(idx, 8).search(readClaim(claim));
  const pair = 'Black tea is brewed from oxidised leaves. A cup holds about 47 milligrams of caffeine.';
  assert.equal(found.primary?.text, pair);
  assert.equal(found.primary?.recall, round4(recall(idx, claim, pair)));
  assert.equal(found.primary?.textMatch, round4(jaccard(claim, pair)));
});

test('a sentence about the same thing with the opposite polarity is a conflict, never the evidence', () => {
  const idx = index({
    pro: ['Bleached corals can recover when water temperatures fall.'],
    contra: ['Bleached corals cannot recover when water temperatures fall.'],
    ...FILLER,
  });
  const claim = 'Bleached corals can recover when water temperatures fall.';
  const found = new EvidenceSearch(idx, 8).search(readClaim(claim));
  assert.equal(found.primary?.chunk.source.source_id, 'pro');
  assert.deepEqual(found.conflicts.get('contra'), { kind: 'negation', chunkId: 'c1' });
  assert.equal(found.bestBySource.has('contra'), false);
});

test('a claim whose words no sentence holds finds no evidence, and later searches are unaffected', () => {
  const idx = index({ bees: ['Western honeybees forage within 3 kilometres of the hive.'], ...FILLER });
  const search = new EvidenceSearch(idx, 8);
  const none = search.search(readClaim('Zebras gallop.'));
  assert.equal(none.primary, undefined);
  const claim = 'Honeybees forage near the hive.';
  assert.equal(search.search(readClaim(claim)).primary?.recall, round4(recall(idx, claim, 'Western honeybees forage within 3 kilometres of the hive.')));
});

test('claims with more than 32 distinct terms score like short ones (term masks span several words)', () => {
  const long = Array.from({ length: 45 }, (_, i) => `term${String.fromCharCode(97 + (i % 26))}${String.fromCharCode(97 + Math.floor(i / 26))}x`);
  const idx = index({
    first: [`${long.slice(0, 30).join(' ')}. ${long.slice(30).join(' ')} closing words here.`],
    second: [`${long.slice(10, 44).join(' ')}.`],
    ...FILLER,
  });
  const claim = `${long.join(' ')}.`;
  const found = new EvidenceSearch(idx, 8).search(readClaim(claim));
  assert.ok(found.primary);
  assert.equal(found.primary.recall, round4(recall(idx, claim, found.primary.text)));
  assert.equal(found.primary.textMatch, round4(jaccard(claim, found.primary.text)));
  for (const w of found.bestBySource.values()) assert.equal(w.recall, round4(recall(idx, claim, w.text)));
  assert.equal(found.bestBySource.size, 2);
});

test('ordinaryWord: a word the corpus writes in lower case away from a sentence start is ordinary, a name is not', () => {
  const idx = index({ a: ['Instead of a walk, we rode. We stayed home instead of going. Paris was cold. We saw Paris in May.'] });
  assert.equal(idx.ordinaryWord('instead'), true);
  assert.equal(idx.ordinaryWord('pari'), false);
  assert.equal(idx.ordinaryWord('unseen'), false);
});

test('a claim writing two words that the page writes as one ("radio carbon" / "radiocarbon") finds them in the window (decision 202)', () => {
  const idx = index({ dates: ['The lab used radiocarbon dating on 40 hearth stones. The hearths are older than the walls.'], ...FILLER });
  const claim = 'The lab used radio carbon dating on 40 hearth stones.';
  const found = new EvidenceSearch(idx, 8).search(readClaim(claim));
  assert.equal(found.primary?.text, 'The lab used radiocarbon dating on 40 hearth stones.');
  assert.equal(found.primary?.recall, 1);
  assert.deepEqual(found.primary?.checks, []);
  // Hyphenated in the claim, one word on the page.
  const coop = index({ ports: ['The two ports signed a cooperation pact in 1998.'], ...FILLER });
  assert.equal(new EvidenceSearch(coop, 8).search(readClaim('The two ports signed a co-operation pact in 1998.')).primary?.recall, 1);
});
