/**
 * Abbreviations after which a period does not end a sentence. Kept as data so
 * the segmenter's logic stays small; lower-case, without the trailing period.
 */

/** Titles and words that are always followed by more of the same sentence. */
export const ALWAYS_CONTINUING = new Set([
  'dr', 'mr', 'mrs', 'ms', 'prof', 'sr', 'jr', 'st', 'mt', 'ft', 'gen', 'col', 'lt', 'sgt', 'capt', 'rev', 'hon',
  'vs', 'cf', 'approx', 'ca', 'fig', 'figs', 'eq', 'eqs', 'no', 'nos', 'vol', 'vols', 'pp', 'ch', 'sec', 'art', 'ed', 'eds',
  'e.g', 'i.e', 'viz', 'al', 'resp', 'dept', 'univ', 'assn', 'est',
]);

/** Abbreviations that end a sentence only when followed by a capitalised word (not a digit). */
export const CONTINUING_BEFORE_DIGIT = new Set([
  'jan', 'feb', 'mar', 'apr', 'jun', 'jul', 'aug', 'sep', 'sept', 'oct', 'nov', 'dec', 'p',
]);

/** Abbreviations that may also end a sentence ("... made by Acme Inc. The next ..."). */
export const AMBIGUOUS = new Set(['etc', 'inc', 'ltd', 'co', 'corp', 'u.s', 'u.k', 'u.n', 'e.u', 'a.m', 'p.m', 'ph.d']);
