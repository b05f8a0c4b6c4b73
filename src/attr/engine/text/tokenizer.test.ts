import { test } from 'node:test';
import assert from 'node:assert/strict';
import { contentTokens, stem, STOP_WORDS } from './tokenizer.ts';

test('tokens are lower-cased, stemmed words and normalised numbers, without stop words or possessives', () => {
  assert.deepEqual(contentTokens("The bees' hive's 1,000 foragers boiled 3.50 litres; Dr. Reyes's notes don't vary."), [
    'bee', 'hive', '1000', 'forager', 'boil', '3.50', 'litre', 'dr', 'reye', 'note', 'dont', 'vary',
  ]);
  assert.deepEqual(['flies', 'classes', 'bus', 'axis', 'glass', 'boiling', 'sing', 'used', 'bed', '42s'].map(stem), [
    'fly', 'class', 'bus', 'axis', 'glass', 'boil', 'sing', 'used', 'bed', '42s',
  ]);
});

/** The regex formulation the tokenizer had before it used character tests: the behaviour to keep. */
function referenceTokens(text: string): string[] {
  const refStem = (word: string): string => {
    if (/^\d/.test(word)) return word;
    let w = word;
    if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
    else if (w.length > 4 && w.endsWith('sses')) w = w.slice(0, -2);
    else if (w.length > 3 && w.endsWith('s') && !/(ss|us|is)$/.test(w)) w = w.slice(0, -1);
    if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
    else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
    return w;
  };
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(/[\p{L}\p{N}]+(?:[.,'’][\p{L}\p{N}]+)*/gu)) {
    let t = m[0].replace(/['’]s$/, '');
    if (/^\d/.test(t)) {
      out.push(/^\d{1,3}(,\d{3})+(\.\d+)?$/.test(t) ? t.replace(/,/g, '') : t);
      continue;
    }
    t = t.replace(/['’.,]/g, '');
    if (t.length < 2 || STOP_WORDS.has(t)) continue;
    out.push(refStem(t));
  }
  return out;
}

test('random text tokenizes as the regex formulation did', () => {
  let seed = 3;
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
  const pieces = ['s', "'s", '’s', 'S', 'ies', 'sses', 'ss', 'us', 'is', 'ing', 'ed', 'e', 'a', '1', '23', ',', '.', "'", '’', ' ', ' ', 'é', 'Ü', '٣', '²', 'the', 'of', 'x', 'bus', '-', '\n'];
  for (let i = 0; i < 3000; i++) {
    const text = Array.from({ length: 1 + Math.floor(rand() * 20) }, () => pieces[Math.floor(rand() * pieces.length)]).join('');
    assert.deepEqual(contentTokens(text), referenceTokens(text), JSON.stringify(text));
  }
});
