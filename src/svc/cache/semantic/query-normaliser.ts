/**
 * Normalisation of a query before it is embedded and compared: Unicode NFKC,
 * lower case, English contractions expanded (so "isn't" and "is not" compare
 * equal AND the negation stays visible to the meaning guard), punctuation
 * dropped except inside numbers (thousands separators removed: "1,000" →
 * "1000"; decimal points kept), symbols kept as their own tokens because they
 * carry meaning ("c#" → "c #", "= and ==", "~"): every Unicode symbol plus
 * # % @ & [ ] { } \, white space collapsed. An acronym written in capitals
 * that would read as a function word once lower-cased ("US", "IT", "WHO") is
 * spelled out ("u s", as "U.S." becomes), so it stays a content word.
 */
import { isFunctionWord } from './query-tokens.ts';

const CONTRACTIONS: Array<[RegExp, string]> = [
  [/\bcan['’]t\b/g, 'can not'],
  [/\bcannot\b/g, 'can not'],
  [/\bwon['’]t\b/g, 'will not'],
  [/\bshan['’]t\b/g, 'shall not'],
  [/\b(\w+)n['’]t\b/g, '$1 not'],
  [/\b(\w+)['’]re\b/g, '$1 are'],
  [/\b(\w+)['’]ve\b/g, '$1 have'],
  [/\b(\w+)['’]ll\b/g, '$1 will'],
  [/\b(\w+)['’]d\b/g, '$1 would'],
  [/\b(what|where|who|how|when|why|that|there|it|he|she)['’]s\b/g, '$1 is'],
  [/\bi['’]m\b/g, 'i am'],
  // The possessive clitic: "India's capital" asks what "the India capital" does (the order of the words is kept).
  [/\b(\w+)['’]s\b/g, '$1'],
  [/\b(\w+s)['’](?=\s|$)/g, '$1'],
];

const SYMBOLS = /[\p{S}#%@&[\]{}\\]/gu;

/** Capitalised acronyms that collide with function words are spelled out, unless the whole text is in capitals. */
function spellAcronyms(text: string): string {
  if (!/\p{Ll}/u.test(text)) return text;
  return text.replace(/\b[A-Z]{2,4}\b/g, (w) => (isFunctionWord(w.toLowerCase()) ? w.toLowerCase().split('').join(' ') : w));
}

export function normaliseQuery(text: string): string {
  let s = spellAcronyms(text.normalize('NFKC')).toLowerCase();
  for (const [re, replacement] of CONTRACTIONS) s = s.replace(re, replacement);
  // Thousands separators go ("1,000" → "1000"), decimal points stay; other punctuation is dropped, symbols kept as tokens.
  s = s
    // A free-standing ampersand is the word "and" ("Earth & Mars"); inside a name it stays a symbol ("AT&T", "R&D").
    .replace(/(^|\s)&(?=\s|$)/g, '$1and')
    .replace(/(\d),(?=\d{3}(?!\d))/g, '$1')
    .replace(/(\d)\.(?=\d)/g, '$1\u0000')
    .replace(SYMBOLS, ' $& ')
    .replace(/[^\p{L}\p{N}\p{M}\u0000\s\p{S}#%@&[\]{}\\-]+/gu, ' ')
    .replace(/\u0000/g, '.');
  return s.replace(/\s+/g, ' ').trim();
}
