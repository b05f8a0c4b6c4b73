/**
 * Tokens of a normalised query for the semantic cache's alignment
 * (query-alignment.ts, docs/semantic-cache.md): every word gets a class —
 * a function word of a small closed class (articles, auxiliaries,
 * pronouns by person, prepositions, question words, ...), a negation, a
 * number, a meaningful symbol, or a content word — and content words get
 * the forms they may match by: the word itself, its inflection base
 * (plural / singular), its verb base (-ing / -ed) and its Porter stem
 * (derivation: engineer / engineering), after folding British and American
 * spelling, and the synonym groups of its usual senses (film / movie: WordNet
 * 3.1, english-synonyms.txt, decision 187). The lists are general English
 * grammar and a general dictionary, not fitted to any data.
 */
import { readFileSync } from 'node:fs';
import { stemmer } from 'stemmer';

export const WORD_CLASSES = [
  'article', 'light', 'preposition', 'do', 'be', 'have', 'modal', 'future', 'past', 'first', 'second', 'generic', 'third', 'quantifier', 'conjunction',
  'question', 'deixis', 'negation', 'number', 'symbol', 'content',
] as const;

export type WordClass =
  | 'article' // a, an, the: dropped or swapped freely
  | 'light' // intensifiers and hedges ("really", "exactly", degree "so"): dropped at a small cost
  | 'preposition'
  | 'do' // the dummy auxiliary do / does
  | 'be' // is / are / am / be / been
  | 'have'
  | 'modal' // can / could / should / would / may / ...
  | 'future' // will / shall: tense, like the past auxiliaries
  | 'past' // did / was / were / had: tense
  | 'first' // i / me / my / we / our ...
  | 'second' // you / your ...
  | 'generic' // one / someone / people ...
  | 'third' // he / she / they / it ...: a different referent
  | 'quantifier' // some / any / all / every / many / most
  | 'conjunction'
  | 'question' // what / which / who / how / when / where / why
  | 'deixis' // this / these / those / following / above / below / attached: points outside the text
  | 'negation'
  | 'number'
  | 'symbol'
  | 'content';

export const CLASS_INDEX: ReadonlyMap<WordClass, number> = new Map(WORD_CLASSES.map((c, i) => [c, i]));

const CLASS_WORDS: ReadonlyArray<[WordClass, string]> = [
  ['article', 'a an the'],
  // "so" in a question is the degree word ("why is it so hard"), an intensifier like "very" (decision 204).
  ['light', 'really actually exactly ever just very please basically truly simply generally currently likely so'],
  // Not over / under, before / after: swapping those changes the question (they are content words here).
  ['preposition', 'of for in on at to about from with by into onto as through during within upon towards toward via per across'],
  ['do', 'do does'],
  ['be', 'is are am be been being'],
  ['have', 'have has having'],
  ['modal', 'can could should would may might must'],
  ['future', 'will shall'],
  ['past', 'did was were had'],
  ['first', 'i me my mine myself we us our ours ourselves'],
  ['second', 'you your yours yourself yourselves'],
  ['generic', 'one someone somebody anyone anybody everyone everybody people person'],
  ['third', 'he him his she her hers they them their theirs it its himself herself themselves itself'],
  ['quantifier', 'some any all every each many most much more few several'],
  ['conjunction', 'and or but if than then because while also'],
  ['question', 'what which who whom whose how when where why'],
  ['deixis', 'this these those following above below attached here'],
  ['negation', 'not no never none nobody nothing neither nor without nowhere cannot'],
];

const CLASS_OF: ReadonlyMap<string, WordClass> = new Map(CLASS_WORDS.flatMap(([c, words]) => words.split(' ').map((w) => [w, c] as [string, WordClass])));

/** True for the closed-class words of this module (articles, pronouns, auxiliaries, ...), not content words. */
export function isFunctionWord(word: string): boolean {
  return CLASS_OF.has(word);
}

/** Number words compare as the digits they stand for ("five" meets "5"). */
const NUMBER_WORDS: ReadonlyMap<string, string> = new Map<string, string>(
  ([
    ...'zero _ two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty'
      .split(' ')
      .map((w, i) => [w, String(i)] as [string, string]),
    ...'thirty forty fifty sixty seventy eighty ninety'.split(' ').map((w, i) => [w, String((i + 3) * 10)] as [string, string]),
    ['hundred', '100'], ['thousand', '1000'], ['million', '1000000'], ['billion', '1000000000'],
    ['first', '1st'], ['second', '2nd'], ['third', '3rd'], ['half', '1/2'], ['double', 'x2'], ['twice', 'x2'],
  ] as Array<[string, string]>).filter(([w]) => w !== '_'),
);

/**
 * Irregular English verbs and plurals, each form to its base ("bought" → "buy", "women" → "woman"), so they match as
 * another verb form or inflection of the same word: general English grammar. Forms that are as often another word are
 * left out ("saw", "found", "left", "felt", "fell", "lay", "rose", "bit", "fed", "led", "won", "sat", "met", "lent",
 * "spelt", "woke", "broke", "thought", "shot", "lives", "leaves").
 */
function formsToBase(line: string): Array<[string, string]> {
  const [base, ...forms] = line.split(' ') as [string, ...string[]];
  return forms.map((f) => [f, base]);
}

const IRREGULAR_VERBS: ReadonlyMap<string, string> = new Map(
  [
    'arise arose arisen', 'become became', 'begin began begun', 'bite bitten', 'bleed bled', 'blow blew blown', 'break broken',
    'breed bred', 'bring brought', 'build built', 'burn burnt', 'buy bought', 'catch caught', 'choose chose chosen', 'come came',
    'deal dealt', 'dig dug', 'draw drew drawn', 'dream dreamt', 'drink drank drunk', 'drive drove driven', 'eat ate eaten',
    'fall fallen', 'fight fought', 'fly flew flown', 'forbid forbade forbidden', 'forget forgot forgotten', 'forgive forgave forgiven',
    'freeze froze frozen', 'get got gotten', 'give gave given', 'go went gone', 'grow grew grown', 'hang hung', 'hear heard', 'hide hid hidden',
    'hold held', 'keep kept', 'know knew known', 'learn learnt', 'lose lost', 'make made', 'mean meant',
    'pay paid', 'ride rode ridden', 'ring rang', 'rise risen', 'run ran', 'say said', 'see seen', 'seek sought',
    'sell sold', 'send sent', 'shake shook shaken', 'shine shone', 'show shown', 'shrink shrank shrunk', 'sing sang sung', 'sink sank sunk',
    'sleep slept', 'slide slid', 'speak spoke spoken', 'spend spent', 'stand stood', 'steal stole stolen',
    'strike struck', 'swear swore sworn', 'swim swam swum', 'take took taken', 'teach taught', 'tell told', 'throw threw thrown',
    'understand understood', 'wake woken', 'wear wore worn', 'weep wept', 'withdraw withdrew withdrawn', 'write wrote written',
  ].flatMap(formsToBase),
);

const IRREGULAR_PLURALS: ReadonlyMap<string, string> = new Map(
  [
    'man men', 'woman women', 'child children', 'foot feet', 'tooth teeth', 'mouse mice', 'goose geese', 'wife wives', 'knife knives',
    'wolf wolves', 'criterion criteria', 'phenomenon phenomena', 'analysis analyses', 'thesis theses', 'crisis crises',
  ].flatMap(formsToBase),
);

const SYMBOL = /^[^\p{L}\p{N}]+$/u;

/** Folds British spellings to American ones so the two match ("favourite", "summarise", "centre", "travelled"). */
function foldSpelling(w: string): string {
  return w
    .replace(/our(s|ed|ing|ite|ites|able)?$/, 'or$1')
    .replace(/is(e|es|ed|ing|ation|ations)$/, 'iz$1')
    .replace(/ys(e|es|ed|ing)$/, 'yz$1')
    .replace(/([^aeiou])re(s?)$/, '$1er$2')
    .replace(/([aeiou])ll(ed|ing|er|ers)$/, '$1l$2');
}

/** Singular of a plural noun or third-person verb ("policies" → "policy", "boxes" → "box"); derivation is left alone. */
function inflectionBase(w: string): string {
  if (w.length <= 3 || /(ss|us|is|ous)$/.test(w)) return w;
  if (w.endsWith('ies') && w.length > 4) return `${w.slice(0, -3)}y`;
  if (/(ches|shes|xes|zes|sses)$/.test(w)) return w.slice(0, -2);
  return w.endsWith('s') ? w.slice(0, -1) : w;
}

/** Verb base: -ing and -ed removed on top of the inflection base ("making" / "made" aside, "used" → "us", "using" → "us"). */
function verbBase(base: string): string {
  let w = base;
  if (w.endsWith('ing') && w.length > 5) w = w.slice(0, -3);
  else if (w.endsWith('ied') && w.length > 4) return `${w.slice(0, -3)}y`;
  else if (w.endsWith('ed') && w.length > 4) w = w.slice(0, -2);
  if (/([bdfgklmnprtz])\1$/.test(w)) w = w.slice(0, -1);
  return w.replace(/e$/, '');
}

export interface QueryToken {
  /** The word as normalised. */
  word: string;
  cls: WordClass;
  /** Index of `cls` in WORD_CLASSES. */
  index: number;
  /** Content words: the word in American spelling; others: the word. */
  folded: string;
  /** Content words: inflection base; numbers: their digits; others: the word. */
  base: string;
  /** Content words: verb base. */
  verb: string;
  /** Content words: Porter stem of the spelling-folded word (what the lookup key is made of). */
  stem: string;
  /**
   * Content words: the synonym groups (english-synonyms.txt) of the word's dictionary forms, sorted; two words that
   * share one are synonyms in their usual sense ("film" / "movie"). Empty for other classes.
   */
  synonyms: readonly number[];
}

/**
 * Synonym groups by word, read once from english-synonyms.txt (decision 187): WordNet 3.1 synsets restricted to the
 * words for which each is a usual sense (tools/semantic-cache/write-english-synonyms.ts).
 */
let synonymGroups: ReadonlyMap<string, readonly number[]> | undefined;

function synonymGroupsByWord(): ReadonlyMap<string, readonly number[]> {
  if (synonymGroups !== undefined) return synonymGroups;
  const byWord = new Map<string, number[]>();
  let group = 0;
  for (const line of readFileSync(new URL('./english-synonyms.txt', import.meta.url), 'utf8').split('\n')) {
    if (line.length === 0 || line.startsWith('#')) continue;
    for (const word of line.split(' ')) {
      let groups = byWord.get(word);
      if (groups === undefined) byWord.set(word, (groups = []));
      groups.push(group);
    }
    group++;
  }
  synonymGroups = byWord;
  return byWord;
}

const NO_SYNONYMS: readonly number[] = Object.freeze([]);

/**
 * The synonym groups of a content word's dictionary forms: the word, its singular or irregular base (and the word
 * without its final "s"), and the verb without -ing / -ed (with and without a final "e": "making" → "make",
 * "stopped" → "stop").
 */
function synonymsOf(folded: string, base: string, irregular: string | undefined): readonly number[] {
  const byWord = synonymGroupsByWord();
  const forms = new Set([folded, base]);
  if (irregular !== undefined) forms.add(irregular);
  // "movies" → "movie" (the inflection base reads "-ies" as "-y": "policies" → "policy").
  if (base !== folded && folded.endsWith('s')) forms.add(folded.slice(0, -1));
  for (const [suffix, min] of [['ing', 6], ['ed', 5]] as const) {
    if (!base.endsWith(suffix) || base.length < min) continue;
    const stem = base.slice(0, -suffix.length);
    forms.add(stem);
    forms.add(`${stem}e`);
    if (/([bdfgklmnprtz])\1$/.test(stem)) forms.add(stem.slice(0, -1));
  }
  const groups = new Set<number>();
  for (const form of forms) for (const g of byWord.get(form) ?? NO_SYNONYMS) groups.add(g);
  return groups.size === 0 ? NO_SYNONYMS : [...groups].sort((x, y) => x - y);
}

/** True when two content words share a synonym group (both lists sorted). */
export function shareSynonym(a: readonly number[], b: readonly number[]): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i] === b[j]) return true;
    if (a[i]! < b[j]!) i++;
    else j++;
  }
  return false;
}

/** The words of a synonym group, for the lookup keys of a query's synonym variants. */
let groupWords: string[][] | undefined;

export function wordsOfGroup(group: number): readonly string[] {
  if (groupWords === undefined) {
    const words: string[][] = [];
    for (const [word, groups] of synonymGroupsByWord()) for (const g of groups) (words[g] ??= []).push(word);
    groupWords = words;
  }
  return groupWords[group] ?? [];
}

const tokenCache = new Map<string, QueryToken>();

function tokenOf(word: string): QueryToken {
  let t = tokenCache.get(word);
  if (t !== undefined) return t;
  const number = /\d/.test(word) ? word.replace(/(\.\d*?)0+$/, '$1').replace(/\.$/, '') : NUMBER_WORDS.get(word);
  const cls: WordClass = number !== undefined ? 'number' : SYMBOL.test(word) ? 'symbol' : (CLASS_OF.get(word) ?? 'content');
  if (cls === 'content') {
    const folded = foldSpelling(word);
    // An irregular plural is an inflection of its singular; an irregular verb form another form of its verb.
    const plural = IRREGULAR_PLURALS.get(folded);
    const verb = IRREGULAR_VERBS.get(folded);
    const base = plural ?? inflectionBase(folded);
    const stem = stemmer(plural ?? verb ?? folded);
    t = { word, cls, index: CLASS_INDEX.get(cls)!, folded, base, verb: verbBase(verb ?? base), stem, synonyms: synonymsOf(folded, base, verb) };
  } else {
    const fixed = number ?? word;
    t = { word, cls, index: CLASS_INDEX.get(cls)!, folded: word, base: fixed, verb: fixed, stem: fixed, synonyms: NO_SYNONYMS };
  }
  if (tokenCache.size >= 100_000) tokenCache.clear();
  tokenCache.set(word, t);
  return t;
}

/**
 * A preposition that ends the question has its object fronted ("What is a VPN for?", "Who is the gift from?"): it
 * asks for that object, so it is a content word that must be matched — "What is a VPN?" asks something else.
 */
function strandedOf(t: QueryToken): QueryToken {
  return { ...t, cls: 'content', index: CLASS_INDEX.get('content')! };
}

function partitiveOf(t: QueryToken): QueryToken {
  return { ...t, cls: 'article', index: CLASS_INDEX.get('article')! };
}

function methodCanOf(t: QueryToken): QueryToken {
  return { ...t, cls: 'do', index: CLASS_INDEX.get('do')! };
}

/** The same word read in another class, by its place in the question. */
function reclassed(t: QueryToken, cls: WordClass): QueryToken {
  return { ...t, cls, index: CLASS_INDEX.get(cls)! };
}

/** Classes of a word that opens a yes / no question ("Is …", "Do …", "Can …"), and of question words. */
const ASKING = new Set<WordClass>(['question', 'do', 'be', 'have', 'modal', 'future', 'past']);

/**
 * A request for the reason appended to a question that asks something else first ("Which is your favourite film,
 * and why?", "Is chess a sport? Why or why not?"): the question asked is the first, and the tag asks for what any
 * answer to it gives anyway. Returns where the tag ("why", "and why", "why not", "why or why not") begins, or
 * out.length when there is none or nothing else is asked before it ("Why?" alone, "cats hate water why"). Its
 * first word is read as a hedge (0.1) and the rest as articles (free), so the "not" of "why not" is no negation.
 */
function reasonTagStart(out: readonly QueryToken[]): number {
  const w = out.map((t) => t.word);
  let i = w.length;
  if (w[i - 1] === 'not' && w[i - 2] === 'why') {
    i -= 2;
    if (w[i - 1] === 'or' && w[i - 2] === 'why') i -= 2;
  } else if (w[i - 1] === 'why') i -= 1;
  else return w.length;
  if (w[i - 1] === 'and') i -= 1;
  // Something else must be asked before it: a question word, or an auxiliary that opens a yes / no question.
  if (i < 2 || !out.slice(0, i).some((t, k) => t.cls === 'question' || (k === 0 && ASKING.has(t.cls)))) return w.length;
  return i;
}

/** Tokens of a normalised query (query-normaliser.ts); hyphenated words count as their parts, a final preposition as a content word. */
export function queryTokens(normalised: string): QueryToken[] {
  const out: QueryToken[] = [];
  for (const part of normalised.split(/[\s-]+/)) if (part.length > 0) out.push(tokenOf(part));
  // The partitive "of" after a quantifier ("some of the", "all of the") is optional in English ("all the"): an article.
  for (let i = 1; i < out.length; i++) if (out[i]!.word === 'of' && out[i - 1]!.cls === 'quantifier') out[i] = partitiveOf(out[i]!);
  // "How can I …?" asks for a method, as "How do I …?" does: "can" right after "how" is the auxiliary "do" (decision 204).
  for (let i = 1; i < out.length; i++) if (out[i]!.word === 'can' && out[i - 1]!.word === 'how') out[i] = methodCanOf(out[i]!);
  // A reason asked for after the question ("…, and why?", "… Why or why not?") is a hedge on it (decision 206).
  const tag = reasonTagStart(out);
  for (let i = tag; i < out.length; i++) out[i] = reclassed(out[i]!, i === tag ? 'light' : 'article');
  for (let i = 1; i < out.length - 1; i++) {
    // "and" that joins two questions ("What is a lens, and how is it made?") adds nothing to either: a hedge.
    if (out[i]!.word === 'and' && out[i + 1]!.cls === 'question') out[i] = reclassed(out[i]!, 'light');
    // "that" after a content word introduces a clause ("the lesson that life taught", "do you think that …") and
    // may be left out in English ("the lesson life taught"); elsewhere ("what does that mean") it stays a word.
    else if (out[i]!.word === 'that' && out[i - 1]!.cls === 'content') out[i] = reclassed(out[i]!, 'light');
  }
  const last = out.at(-1);
  if (last !== undefined && last.cls === 'preposition') out[out.length - 1] = strandedOf(last);
  return out;
}

/**
 * The words a matching query must share: the Porter stems of the content words, numbers and symbols, sorted. Two
 * queries the alignment can accept without a typo have the same key, so the key indexes the cache (every entry with
 * the query's key is a candidate, however old).
 */
export function lookupKeyOf(tokens: readonly QueryToken[]): string {
  return keyStems(tokens).sort().join(' ');
}

function keyStems(tokens: readonly QueryToken[]): string[] {
  return tokens.filter((t) => t.cls === 'content' || t.cls === 'number' || t.cls === 'symbol').map((t) => t.stem);
}

/**
 * The lookup keys of the query with one content word replaced by a synonym ("best movie" → "best film"): an entry
 * the alignment accepts through one synonym has one of these keys (decision 187). At most `max`, in the order of the
 * query's words; the query's own key is not among them.
 */
export function synonymLookupKeysOf(tokens: readonly QueryToken[], max: number): string[] {
  const stems = keyStems(tokens);
  const own = [...stems].sort().join(' ');
  const keys = new Set<string>();
  let position = 0;
  for (const t of tokens) {
    if (t.cls !== 'content' && t.cls !== 'number' && t.cls !== 'symbol') continue;
    const at = position++;
    for (const stem of synonymStemsOf(t)) {
      const variant = [...stems];
      variant[at] = stem;
      const key = variant.sort().join(' ');
      if (key !== own) keys.add(key);
      if (keys.size >= max) return [...keys];
    }
  }
  return [...keys];
}

const synonymStemCache = new Map<string, readonly string[]>();

/** The stems of a content word's synonyms (other than its own), by word; cached like the tokens. */
function synonymStemsOf(t: QueryToken): readonly string[] {
  if (t.synonyms.length === 0) return NO_STEMS;
  let stems = synonymStemCache.get(t.word);
  if (stems === undefined) {
    const set = new Set<string>();
    for (const group of t.synonyms) for (const word of wordsOfGroup(group)) set.add(tokenOf(word).stem);
    set.delete(t.stem);
    stems = [...set];
    if (synonymStemCache.size >= 100_000) synonymStemCache.clear();
    synonymStemCache.set(t.word, stems);
  }
  return stems;
}

const NO_STEMS: readonly string[] = Object.freeze([]);
