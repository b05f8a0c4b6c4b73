/**
 * Normalisation of a query before it is embedded and compared: Unicode NFKC,
 * lower case, English contractions expanded (so "isn't" and "is not" compare
 * equal AND the negation stays visible to the meaning guard), punctuation
 * dropped except inside numbers and the symbols that carry meaning (# + % $ @ &,
 * kept as their own tokens: "c#" → "c #"), white space collapsed.
 */

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
];

export function normaliseQuery(text: string): string {
  let s = text.normalize('NFKC').toLowerCase();
  for (const [re, replacement] of CONTRACTIONS) s = s.replace(re, replacement);
  // Keep decimal points and thousands separators that sit between digits; drop other punctuation.
  s = s.replace(/(\d)[.,](?=\d)/g, '$1\u0000').replace(/[#+%$@&]/g, ' $& ').replace(/[^\p{L}\p{N}\u0000\s#+%$@&-]+/gu, ' ').replace(/\u0000/g, '.');
  return s.replace(/\s+/g, ' ').trim();
}
