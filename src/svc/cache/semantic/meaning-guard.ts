/**
 * Guards against the classic semantic-cache false positive: two queries that
 * look alike but mean different things. A candidate is rejected when the
 * queries differ in negation ("is X allowed" / "is X not allowed") or in any
 * number ("2023 revenue" / "2024 revenue", "top 5" / "top 10"), or when a
 * content word was substituted ("capital of France" / "capital of Germany"),
 * whatever the embedding similarity says. Adding or dropping a word ("…
 * please") is not a substitution. Inputs are normalised queries.
 */

const NEGATIONS = new Set(['not', 'no', 'never', 'none', 'nobody', 'nothing', 'neither', 'nor', 'without', 'nowhere', 'cannot']);

const NUMBER_WORDS = new Set([
  'zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten', 'eleven', 'twelve', 'twenty', 'thirty',
  'forty', 'fifty', 'hundred', 'thousand', 'million', 'billion', 'first', 'second', 'third', 'half', 'double', 'twice',
]);

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

function unmatchedContentWords(words: readonly string[], other: readonly string[]): number {
  const content = (ws: readonly string[]) => ws.filter((w) => w.length > 1 && !STOPWORDS.has(w) && !NEGATIONS.has(w) && !/\d/.test(w));
  const theirs = content(other);
  return content(words).filter((w) => !theirs.some((t) => nearSameWord(w, t))).length;
}

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

export type MeaningCheck = { same: true } | { same: false; reason: 'negation_differs' | 'numbers_differ' | 'content_word_substituted' };

export function compareMeaningMarkers(normalisedA: string, normalisedB: string): MeaningCheck {
  const a = normalisedA.split(' ');
  const b = normalisedB.split(' ');
  // Counts, not parity: "not never" style double negation is rare, and refusing a hit costs only a provider call.
  if (negationCount(a) !== negationCount(b)) return { same: false, reason: 'negation_differs' };
  if (numbersOf(a) !== numbersOf(b)) return { same: false, reason: 'numbers_differ' };
  // A word only on one side is an addition; words missing on BOTH sides are a substitution.
  if (unmatchedContentWords(a, b) > 0 && unmatchedContentWords(b, a) > 0) return { same: false, reason: 'content_word_substituted' };
  return { same: true };
}
