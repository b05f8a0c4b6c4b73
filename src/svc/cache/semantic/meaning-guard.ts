/**
 * Guards against the classic semantic-cache false positive: two queries that
 * look alike but mean different things (docs/semantic-cache.md). A candidate
 * is rejected, whatever the embedding similarity says, when the queries differ in
 * - negation ("is X allowed" / "is X not allowed");
 * - any number ("2023 revenue" / "2024 revenue", "top 5" / "top 10");
 * - a symbol that carries meaning ("C#" / "C++", "#" / "##");
 * - a content word on either side: substituted ("capital of France" /
 *   "capital of Germany") or added ("price of gold" / "price of gold in the
 *   UK") — on real near-topic pairs an added modifier changes the question far
 *   more often than not;
 * - the question word ("where can I learn X" / "how can I learn X");
 * - the order of the shared content words ("convert benzene into toluene" /
 *   "convert toluene into benzene").
 * Inputs are normalised queries (query-normaliser.ts). Inflections of a word
 * still match (invoice/invoices, summarise/summarize).
 */

const NEGATIONS = new Set(['not', 'no', 'never', 'none', 'nobody', 'nothing', 'neither', 'nor', 'without', 'nowhere', 'cannot']);

const NUMBER_WORDS = new Set([
  'zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'twenty', 'thirty',
  'forty', 'fifty', 'hundred', 'thousand', 'million', 'billion', 'first', 'second', 'third', 'half', 'double', 'twice',
]);

/** Question words: a different one asks a different question. */
const QUESTION_WORDS = ['what', 'which', 'who', 'whom', 'whose', 'how', 'when', 'where', 'why'] as const;

/** Symbols the normaliser keeps as their own tokens because they change meaning (C#, C++, 50%). */
const MEANINGFUL_SYMBOLS = /^[#+%$@&]$/;

const STOPWORDS = new Set([
  'a', 'an', 'the', 'is', 'are', 'was', 'were', 'be', 'do', 'does', 'did', 'can', 'could', 'will', 'would', 'should', 'shall', 'may',
  'might', 'must', 'have', 'has', 'had', 'i', 'me', 'my', 'we', 'our', 'you', 'your', 'it', 'its', 'of', 'to', 'in', 'on', 'for', 'at',
  'by', 'with', 'from', 'about', 'and', 'or', 'what', 'which', 'who', 'how', 'when', 'where', 'why', 'this', 'that', 'there', 'please',
  'tell', 'give', 'show', 'explain', 'describe', 'some', 'any', 'into', 'as', 'so', 'if', 'then', 'than', 'just', 'also', 'very', 'get',
]);

/** Same word, or the same stem by a shared prefix (summarise/summarize, invoice/invoices). */
function nearSameWord(a: string, b: string): boolean {
  if (a === b) return true;
  const shorter = Math.min(a.length, b.length);
  if (shorter < 4) return false;
  let common = 0;
  while (common < shorter && a[common] === b[common]) common++;
  return common >= Math.max(4, shorter - 2);
}

const contentWords = (ws: readonly string[]) => ws.filter((w) => w.length > 1 && !STOPWORDS.has(w) && !NEGATIONS.has(w) && !/\d/.test(w));

function unmatchedContentWords(words: readonly string[], other: readonly string[]): number {
  const theirs = contentWords(other);
  return contentWords(words).filter((w) => !theirs.some((t) => nearSameWord(w, t))).length;
}

/** True when the content words both queries share appear in the same order. */
function sameContentOrder(a: readonly string[], b: readonly string[]): boolean {
  const cb = contentWords(b);
  let last = -1;
  for (const w of contentWords(a)) {
    const at = cb.findIndex((t) => nearSameWord(w, t));
    if (at < 0) continue;
    if (at < last) return false;
    last = at;
  }
  return true;
}

const questionWords = (ws: readonly string[]) => QUESTION_WORDS.filter((q) => ws.includes(q)).join(' ');
const symbolsOf = (ws: readonly string[]) => ws.filter((w) => MEANINGFUL_SYMBOLS.test(w)).sort().join('');

function negationCount(words: readonly string[]): number {
  return words.filter((w) => NEGATIONS.has(w)).length;
}

function numbersOf(words: readonly string[]): string {
  return words
    .filter((w) => /\d/.test(w) || NUMBER_WORDS.has(w))
    .map((w) => w.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, ''))
    .sort()
    .join(' ');
}

export type MeaningCheck =
  | { same: true }
  | { same: false; reason: 'negation_differs' | 'numbers_differ' | 'symbols_differ' | 'content_word_differs' | 'question_word_differs' | 'word_order_differs' };

export function compareMeaningMarkers(normalisedA: string, normalisedB: string): MeaningCheck {
  const a = normalisedA.split(' ');
  const b = normalisedB.split(' ');
  // Counts, not parity: "not never" style double negation is rare, and refusing a hit costs only a provider call.
  if (negationCount(a) !== negationCount(b)) return { same: false, reason: 'negation_differs' };
  if (numbersOf(a) !== numbersOf(b)) return { same: false, reason: 'numbers_differ' };
  if (symbolsOf(a) !== symbolsOf(b)) return { same: false, reason: 'symbols_differ' };
  // Substituted or added: measured on QQP's near-topic pairs, an extra content word changes the question more often than not.
  if (unmatchedContentWords(a, b) > 0 || unmatchedContentWords(b, a) > 0) return { same: false, reason: 'content_word_differs' };
  if (questionWords(a) !== questionWords(b)) return { same: false, reason: 'question_word_differs' };
  if (!sameContentOrder(a, b)) return { same: false, reason: 'word_order_differs' };
  return { same: true };
}
