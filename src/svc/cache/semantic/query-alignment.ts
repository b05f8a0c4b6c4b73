/**
 * The built-in semantic cache's judgement of two normalised queries
 * (docs/semantic-cache.md, "How a candidate is judged"): a word-by-word
 * alignment in which every content word on each side must be matched, in
 * order, by a content word on the other side — the same word, an
 * inflection (policy / policies), a verb form (grow / growing), a
 * derivation (engineer / engineering), a synonym in its usual sense (film /
 * movie, decision 187) or, in long words, one typo — while
 * function words may be dropped or swapped within their class at a small
 * cost ("how can I" / "how do I", "what" / "which", "a" / "the"). What the
 * near-topic negatives of a cache change is refused outright: another or an
 * added content word (entities included), a number, a negation, a symbol, the
 * question word, the order of the content words (except the two conjuncts of
 * an "and" / "or", which may swap), and any query that points outside its
 * own text ("this", "the following") — two identical texts can then ask
 * about different things.
 *
 * The similarity is 1 − cost / mass, where the mass grows with the number of
 * content words: one swapped function word in a long question changes less
 * than in a three-word one. The costs are linguistic judgements on a small
 * scale (0.1 … 0.6), chosen on the QQP development split by the curve as a
 * whole; nothing in them names a word of any data set.
 */
import { CLASS_INDEX, type QueryToken, WORD_CLASSES, type WordClass, queryTokens, shareSynonym } from './query-tokens.ts';

export type MeaningDifference =
  | 'context_dependent'
  | 'negation_differs'
  | 'numbers_differ'
  | 'symbols_differ'
  | 'question_word_differs'
  | 'content_word_differs'
  | 'word_order_differs';

export type Alignment = { same: true; cost: number; similarity: number } | { same: false; reason: MeaningDifference };

export interface AlignmentCosts {
  /** Dropping (or adding) a word of this class; classes not listed cannot be dropped. */
  drop: Partial<Record<WordClass, number>>;
  /** Swapping two words of these classes (`a>b` with the class names sorted); pairs not listed cannot be swapped. */
  swap: Record<string, number>;
  /** what ↔ which, the only question words that ask the same. */
  whatWhich: number;
  /** Content words: singular ↔ plural, verb forms, derivations (same Porter stem), one typo in a long word. */
  inflection: number;
  verbForm: number;
  derivation: number;
  typo: number;
  /** A content word is shorter than this: no typo allowance. */
  typoMinLength: number;
  /** Two content words that are synonyms in their usual sense ("film" / "movie"; query-tokens.ts, decision 187). */
  synonym: 0.2,
  /** The two conjuncts of an "X and Y" / "X or Y" in the other order ("between Arduino and Raspberry Pi"). */
  conjunctOrder: number;
  /** similarity = 1 − cost / massᵉ, mass = content words and numbers of the shorter side. */
  massExponent: number;
}

export const DEFAULT_ALIGNMENT_COSTS: AlignmentCosts = {
  // An intensifier or hedge ("really", "actually", "ever", "so") asks nothing of its own: 0.1, like an inflection (decision 204).
  drop: { article: 0, light: 0.1, preposition: 0.4, do: 0.3, be: 0.4, have: 0.4, modal: 0.5, future: 0.6, past: 0.6, first: 0.5, second: 0.5, generic: 0.5, quantifier: 0.3, conjunction: 0.5 },
  // The asker ↔ the one asked ("do I" / "do you") and a present ↔ a future ("does it" / "will it") change whom or when
  // the question is about: 0.6 and 0.7 (decision 206; were 0.4 and 0.5), so only a long question absorbs one.
  swap: {
    'article>article': 0, 'preposition>preposition': 0.3, 'do>do': 0.1, 'be>be': 0.2, 'be>do': 0.3, 'do>modal': 0.2, 'modal>modal': 0.3, 'be>modal': 0.4,
    'have>have': 0.1, 'be>past': 0.5, 'do>past': 0.5, 'modal>past': 0.5, 'be>future': 0.7, 'do>future': 0.7, 'future>modal': 0.7,
    'future>future': 0.1, 'past>past': 0.3, 'first>first': 0.1, 'second>second': 0.1, 'first>second': 0.6, 'first>generic': 0.4,
    'generic>second': 0.3, 'generic>generic': 0.1, 'article>first': 0.4, 'article>second': 0.4,
    'article>quantifier': 0.2, 'quantifier>quantifier': 0.3, 'conjunction>conjunction': 0.5, 'light>light': 0.2,
  },
  whatWhich: 0.2,
  inflection: 0.1,
  verbForm: 0.3,
  derivation: 0.5,
  typo: 0.3,
  typoMinLength: 6,
  synonym: 0.2,
  conjunctOrder: 0.1,
  massExponent: 1.25,
};

/** One edit: a transposition, deletion, insertion or substitution of a single character. */
function oneTypoApart(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) return a.slice(i + 1) === b.slice(i + 1) || (a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2));
  return a.length > b.length ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

/** The cost tables as arrays indexed by class, built once per costs object (the alignment's inner loop reads them). */
interface CompiledCosts {
  drop: Float64Array;
  swap: Float64Array;
  k: AlignmentCosts;
}

const compiled = new WeakMap<AlignmentCosts, CompiledCosts>();

function compile(k: AlignmentCosts): CompiledCosts {
  let c = compiled.get(k);
  if (c) return c;
  const n = WORD_CLASSES.length;
  const drop = new Float64Array(n).fill(Infinity);
  const swap = new Float64Array(n * n).fill(Infinity);
  for (const [cls, cost] of Object.entries(k.drop)) drop[CLASS_INDEX.get(cls as WordClass)!] = cost;
  for (const [pair, cost] of Object.entries(k.swap)) {
    const [x, y] = pair.split('>').map((name) => CLASS_INDEX.get(name as WordClass)!) as [number, number];
    swap[x * n + y] = cost;
    swap[y * n + x] = cost;
  }
  c = { drop, swap, k };
  compiled.set(k, c);
  return c;
}

const CONTENT = CLASS_INDEX.get('content')!;
const NUMBER = CLASS_INDEX.get('number')!;
const QUESTION = CLASS_INDEX.get('question')!;

function swapCost(x: QueryToken, y: QueryToken, c: CompiledCosts): number {
  if (x.word === y.word) return 0;
  const k = c.k;
  if (x.index === CONTENT && y.index === CONTENT) {
    if (x.folded === y.folded) return 0;
    if (x.stem === y.stem) return x.base === y.base ? k.inflection : x.verb === y.verb ? k.verbForm : k.derivation;
    if (x.word.length >= k.typoMinLength && y.word.length >= k.typoMinLength && oneTypoApart(x.word, y.word)) return k.typo;
    return shareSynonym(x.synonyms, y.synonyms) ? k.synonym : Infinity;
  }
  if (x.index === NUMBER && y.index === NUMBER) return x.base === y.base ? 0 : Infinity;
  if (x.index === QUESTION && y.index === QUESTION) return (x.word === 'what' || x.word === 'which') && (y.word === 'what' || y.word === 'which') ? k.whatWhich : Infinity;
  return c.swap[x.index * WORD_CLASSES.length + y.index]!;
}

/** Minimal total cost of turning `a` into `b` (weighted edit distance over words; content words never dropped). */
export function alignmentCost(a: readonly QueryToken[], b: readonly QueryToken[], k: AlignmentCosts = DEFAULT_ALIGNMENT_COSTS): number {
  const c = compile(k);
  const m = b.length;
  let prev = new Float64Array(m + 1);
  let cur = new Float64Array(m + 1);
  const dropB = new Float64Array(m);
  for (let j = 0; j < m; j++) dropB[j] = c.drop[b[j]!.index]!;
  for (let j = 1; j <= m; j++) prev[j] = prev[j - 1]! + dropB[j - 1]!;
  for (let i = 1; i <= a.length; i++) {
    const x = a[i - 1]!;
    const dx = c.drop[x.index]!;
    cur[0] = prev[0]! + dx;
    let rowMin = cur[0]!;
    for (let j = 1; j <= m; j++) {
      const v = Math.min(prev[j - 1]! + swapCost(x, b[j - 1]!, c), prev[j]! + dx, cur[j - 1]! + dropB[j - 1]!);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    // Every path through this row already costs more than any acceptable alignment: stop early.
    if (rowMin === Infinity) return Infinity;
    [prev, cur] = [cur, prev];
  }
  return prev[m]!;
}

const sortedOf = (tokens: readonly QueryToken[], cls: WordClass, by: (t: QueryToken) => string = (t) => t.base) =>
  tokens.filter((t) => t.cls === cls).map(by).sort().join(' ');

/** What must be equal between two queries before they are aligned at all, computed once per token list. */
interface Markers {
  deixis: boolean;
  negations: number;
  numbers: string;
  symbols: string;
  /** The question words, with which folded into what. */
  questions: string;
  contentWords: number;
  /** The content words' stems, sorted: equal when two queries use the same words in any order and form. */
  stems: string;
  /** Content words and numbers: the similarity's mass. */
  mass: number;
}

const markerCache = new WeakMap<readonly QueryToken[], Markers>();

function markersOf(tokens: readonly QueryToken[]): Markers {
  let m = markerCache.get(tokens);
  if (m) return m;
  let negations = 0;
  let contentWords = 0;
  let numbers = 0;
  for (const t of tokens) {
    if (t.cls === 'negation') negations++;
    else if (t.cls === 'content') contentWords++;
    else if (t.cls === 'number') numbers++;
  }
  m = {
    deixis: tokens.some((t) => t.cls === 'deixis'),
    negations,
    numbers: sortedOf(tokens, 'number'),
    symbols: sortedOf(tokens, 'symbol'),
    questions: sortedOf(tokens, 'question', (t) => (t.word === 'which' ? 'what' : t.word)),
    contentWords,
    stems: sortedOf(tokens, 'content', (t) => t.stem),
    mass: contentWords + numbers,
  };
  markerCache.set(tokens, m);
  return m;
}

/** The first marker that differs, checked before the alignment (cheap, and names the reason). */
function markerDifference(a: Markers, b: Markers): MeaningDifference | undefined {
  if (a.deixis || b.deixis) return 'context_dependent';
  if (a.negations !== b.negations) return 'negation_differs';
  if (a.numbers !== b.numbers) return 'numbers_differ';
  if (a.symbols !== b.symbols) return 'symbols_differ';
  if (a.questions !== b.questions) return 'question_word_differs';
  // Content words are never dropped, so an alignment needs as many on each side.
  if (a.contentWords !== b.contentWords) return 'content_word_differs';
  return undefined;
}

/** True when two queries use the same content words (by stem, in any order): a refusal of such a pair is for meaning. */
export function sameContentWords(a: readonly QueryToken[], b: readonly QueryToken[]): boolean {
  return markersOf(a).stems === markersOf(b).stems;
}

const AND_OR = new Set(['and', 'or']);
const ARTICLE = CLASS_INDEX.get('article')!;
const isPhraseWord = (t: QueryToken) => t.index === CONTENT || t.index === NUMBER || t.index === ARTICLE;
/** Conjuncts longer than this (words) are not tried, and at most this many reorderings per question: the cost stays bounded. */
const MAX_CONJUNCT = 4;
const MAX_REORDERINGS = 64;

/**
 * Each way of writing `tokens` with the two conjuncts of one "X and Y" / "X or Y" swapped, X and Y being runs of
 * content words, numbers and articles: coordination is symmetric ("the difference between an alligator and a
 * crocodile", "rich or happy"), unlike the order of words around a preposition ("Celsius to Fahrenheit") or a
 * comparison ("faster than"). Where each conjunct begins and ends is not known ("the difference between Raspberry Pi
 * and Arduino"), so every split up to MAX_CONJUNCT words a side is tried.
 */
function conjunctSwaps(tokens: readonly QueryToken[]): QueryToken[][] {
  const out: QueryToken[][] = [];
  for (let i = 1; i < tokens.length - 1; i++) {
    if (!AND_OR.has(tokens[i]!.word)) continue;
    for (let start = i - 1; start >= 0 && i - start <= MAX_CONJUNCT && isPhraseWord(tokens[start]!); start--) {
      for (let end = i + 2; end <= tokens.length && end - i - 1 <= MAX_CONJUNCT && isPhraseWord(tokens[end - 1]!); end++) {
        out.push([...tokens.slice(0, start), ...tokens.slice(i + 1, end), tokens[i]!, ...tokens.slice(start, i), ...tokens.slice(end)]);
        if (out.length >= MAX_REORDERINGS) return out;
      }
    }
  }
  return out;
}

/** Judges two normalised queries; `same: true` carries the alignment's cost and similarity in [0, 1]. */
export function alignQueries(normalisedA: string, normalisedB: string, costs: AlignmentCosts = DEFAULT_ALIGNMENT_COSTS): Alignment {
  return alignTokens(queryTokens(normalisedA), queryTokens(normalisedB), costs);
}

export function alignTokens(a: readonly QueryToken[], b: readonly QueryToken[], costs: AlignmentCosts = DEFAULT_ALIGNMENT_COSTS): Alignment {
  const ma = markersOf(a);
  const mb = markersOf(b);
  const marker = markerDifference(ma, mb);
  if (marker !== undefined) return { same: false, reason: marker };
  let cost = alignmentCost(a, b, costs);
  // The same content words in another order are the same question when what moved is one conjunct of an "and" / "or".
  if (cost === Infinity && ma.stems === mb.stems) {
    for (const variant of conjunctSwaps(b)) cost = Math.min(cost, costs.conjunctOrder + alignmentCost(a, variant, costs));
    for (const variant of conjunctSwaps(a)) cost = Math.min(cost, costs.conjunctOrder + alignmentCost(variant, b, costs));
  }
  if (cost === Infinity) {
    // The same content words in another order, or another content word (a typo only counts where it aligns).
    return { same: false, reason: ma.stems === mb.stems ? 'word_order_differs' : 'content_word_differs' };
  }
  const mass = Math.min(ma.mass, mb.mass);
  const similarity = mass === 0 ? (cost === 0 ? 1 : 0) : Math.max(0, 1 - cost / mass ** costs.massExponent);
  return { same: true, cost, similarity };
}
