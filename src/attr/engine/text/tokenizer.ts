/**
 * Tokens for retrieval and overlap scoring: lower-cased words and numbers
 * (thousands separators removed, decimals kept whole), stop words dropped,
 * and a light suffix stemmer so "boils"/"boiling"/"boiled" meet. Both claims
 * and corpus chunks go through this one function, which is what matters.
 */

/** Words too common to carry evidence; never tokens. */
export const STOP_WORDS: ReadonlySet<string> = new Set(
  (
    'a an and are as at be been being but by did do does for from had has have he her his how i if in into is it its ' +
    'me my of on or our she so than that the their them then there these they this those to too us was we were what ' +
    'when where which while who whom why with you your also about can could may might must shall should will would ' +
    'very just more most such each other some any all both only own same over under again further once here out up ' +
    'down off above below between through during before after am let one two per via'
  ).split(' '),
);

const TOKEN = /[\p{L}\p{N}]+(?:[.,'’][\p{L}\p{N}]+)*/gu;

const isAsciiDigit = (code: number): boolean => code >= 48 && code <= 57;
const APOSTROPHE = 0x27;
const RIGHT_QUOTE = 0x2019;
/** Characters joining the parts of a token ("3.5", "1,000", "don't"), dropped from word tokens. */
const JOINERS = /['’.,]/g;
const HAS_JOINER = /['’.,]/;

/**
 * Light suffix stemmer: "ies" → "y", "sses" → "ss", a plural "s" (not after
 * s, u or i), then "ing" or "ed". Numbers are left alone.
 */
export function stem(word: string): string {
  if (isAsciiDigit(word.charCodeAt(0))) return word;
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) w = `${w.slice(0, -3)}y`;
  else if (w.length > 4 && w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);
  if (w.length > 5 && w.endsWith('ing')) w = w.slice(0, -3);
  else if (w.length > 4 && w.endsWith('ed')) w = w.slice(0, -2);
  return w;
}

/** Normalises a numeric token: "1,000" → "1000", "3.50" stays "3.50". */
function normaliseNumber(token: string): string {
  return /^\d{1,3}(,\d{3})+(\.\d+)?$/.test(token) ? token.replace(/,/g, '') : token;
}

/** Content tokens of `text`, in order (duplicates kept). Character tests stand in for per-token regexes. */
export function contentTokens(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(TOKEN)) {
    let t = m[0];
    // A possessive "'s" / "’s" is not part of the word.
    const n = t.length;
    if (n >= 2 && t.charCodeAt(n - 1) === 0x73 && (t.charCodeAt(n - 2) === APOSTROPHE || t.charCodeAt(n - 2) === RIGHT_QUOTE)) t = t.slice(0, -2);
    if (isAsciiDigit(t.charCodeAt(0))) {
      out.push(normaliseNumber(t));
      continue;
    }
    if (HAS_JOINER.test(t)) t = t.replace(JOINERS, '');
    if (t.length < 2 || STOP_WORDS.has(t)) continue;
    out.push(stem(t));
  }
  return out;
}
