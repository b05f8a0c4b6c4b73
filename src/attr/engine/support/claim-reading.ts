/**
 * What support scoring needs to know about a claim, read once per claim:
 * its content tokens in order, its fragments (clauses: every one needs its
 * own support), the tokens that name something (entities: capitalised
 * words), its quantities (a number with the word it counts), its polarity
 * per fragment, whether it is worded in the passive voice (where
 * argument order legitimately flips), and the discourse connectives that
 * only tie it to the text it was taken from ("However", "later released").
 */
import { stripCitationNoise } from '../text/citation-markers.ts';
import { stripLinks } from '../text/links.ts';
import { contentTokens, tokenSpans, type TokenSpan } from '../text/tokenizer.ts';
import { NEGATION } from '../warrant/lexicon.ts';
import { entityAliases, type EntityAlias } from './entity-aliases.ts';

export interface ClaimFragment {
  /** Distinct content tokens of the fragment, in order. */
  terms: string[];
  /** The fragment's content tokens in order, repeats kept (for order and substitution checks). */
  spans: TokenSpan[];
  /** Content tokens a negation cue applies to ("cannot recover" → "recov"). */
  negatedTerms: Set<string>;
}

/** How far (in characters) after a negation cue its word may stand: "not dead", "do not really forage". */
const NEGATION_REACH = 24;

/** The first content token after each negation cue, within NEGATION_REACH characters. */
export function negatedTerms(text: string, spans: readonly TokenSpan[]): Set<string> {
  const out = new Set<string>();
  const lower = text.toLowerCase();
  if (!NEGATION_CUE.test(lower)) return out;
  for (const m of lower.matchAll(NEGATION)) {
    const end = m.index + m[0].length;
    const next = spans.find((s) => s.start >= end);
    if (next && next.start - end <= NEGATION_REACH) out.add(next.term);
    else out.add('');
  }
  return out;
}
const NEGATION_CUE = new RegExp(NEGATION.source);

export interface Quantity {
  value: string;
  /** The content token right after the number ("3 kilometres" → "kilometr"), if any. */
  unit: string | undefined;
  /** Other ways the evidence may write the value (see `ClaimReading.numbers`). */
  alternatives: string[];
}

/** Months and weekdays are capitalised but are dates, not names: numbers and the tokens themselves carry them. */
const CALENDAR_WORDS = new Set(
  tokenSpans('January February March April May June July August September October November December Jan Feb Mar Apr Jun Jul Aug Sep Sept Oct Nov Dec Monday Tuesday Wednesday Thursday Friday Saturday Sunday').map((s) => s.term),
);

export interface ClaimReading {
  /** The claim without citation markers and links. */
  text: string;
  spans: TokenSpan[];
  /** Distinct content tokens in order of first appearance. */
  terms: string[];
  fragments: ClaimFragment[];
  /** Tokens written with a capital (names, places, titles; the first word too, usually the subject), months and weekdays aside. */
  entities: Set<string>;
  /** Country and nation names the claim writes, with the other names of the same one (entity-aliases.ts). */
  aliases: EntityAlias[];
  /** The claim's first word when it is capitalised and nothing but punctuation precedes it (a name, or only a capital by position). */
  lead: string | undefined;
  quantities: Quantity[];
  /** Words the evidence must hold because a comparison names them: "more caffeine than black tea" → "black". */
  compared: string[];
  /** Years tied to a relation word ("after 2019", "since 1998"): the evidence must tie them the same way. */
  yearRelations: Array<{ relation: string; year: string }>;
  /** Numbers, each with the other ways evidence may write it ("2018–19" ends in 2019 as well as 19). */
  numbers: Array<{ term: string; alternatives: string[] }>;
  /**
   * Two neighbouring words written with a hyphen or a space that evidence may
   * write as one ("co-operation" / "cooperation", "radio carbon" /
   * "radiocarbon"): the one word, and the claim terms it says.
   */
  joined: Array<{ whole: string; parts: [string, string] }>;
  passive: boolean;
  /**
   * Terms the claim uses only as discourse connectives, which tie it to the
   * text it was taken from rather than state anything ("However, …", "The
   * band later released …", "It eventually was …", "As a result, …"): they
   * count for support where the evidence has them and are not missed where
   * it does not (see `connectiveTerms`).
   */
  connectives: ReadonlySet<string>;
}

/**
 * Clause boundaries: semicolons, colons, dashes, and a comma or "and"/"but"
 * that opens a new clause (a pronoun, relative word or conjunction follows).
 * Splitting is what makes "…, and they also produce gold" need support of
 * its own instead of riding on the first clause's.
 */
const CLAUSE_BREAK =
  /;|:(?!\d)|\s[–—-]\s|,?\s+(?:and|but|yet|while|whereas|although|though)\s+(?=(?:he|she|it|they|we|i|you|its|their|his|her|this|these|those|there|then|also|later|now|so)\b)|,\s+(?:and|but|yet|while|whereas|although|though|which|who|whom|whose|where|when)\b|,\s+(?=(?:he|she|it|they|this|these)\s)/giu;

/** Double-quoted stretches (straight or curly quotes): a title or a quotation, never cut into clauses. */
const QUOTED = /"[^"]*"|“[^”]*”/g;

function quotedRanges(text: string): Array<[number, number]> {
  return [...text.matchAll(QUOTED)].map((m) => [m.index, m.index + m[0].length]);
}

const COMPARISON = /\b(?:than|versus|vs\.?|compared (?:to|with)|relative to|unlike)\s/giu;
/** A relation word before a year, at most two words apart ("after 2019", "before the 1998", "since early 2004"). */
export const YEAR_RELATION = /\b(before|after|since|until|till|by|from|through|circa|around)\s+(?:\S+\s+){0,2}?((?:1[5-9]|20)\d\d)\b/g;

export const PASSIVE =
  /\b(?:is|are|was|were|be|been|being|get|gets|got|gotten)\s+(?:\p{L}+ly\s+)?\p{L}+(?:ed|en|wn|ung|uck|ilt|ade|ld|nt|id|ot)\b[^.;]*?\bby\b|(?<=[\p{L}\p{N})"”’]\s+)(?:made|written|directed|produced|founded|built|designed|created|composed|painted|published|released|developed|owned|operated|hosted|performed|sung|voiced|won|led)\s+by\s/iu;

/** What stands between two words a page may write as one: a hyphen or a single space ("co-operation", "radio carbon"). */
const JOIN_GAP = /^(?:[-‐‑]| )$/;

/**
 * An enumeration of at least three single words starting here: "playwrights,
 * poets, songwriters, and novelists", "bees, wasps or ants" (not "goals, and
 * the team", not "films and won").
 */
const ENUMERATION = /^\p{L}+(?:,\s*(?!(?:and|or)\b)\p{L}+)+,?\s+(?:and|or)\s+\p{L}+\b/u;

export function readClaim(raw: string): ClaimReading {
  const text = stripLinks(stripCitationNoise(raw));
  const spans = tokenSpans(text);
  const terms = [...new Set(spans.map((s) => s.term))];
  const fragments: ClaimFragment[] = [];
  let from = 0;
  const cut = (to: number) => {
    const pieceSpans = spans.filter((s) => s.start >= from && s.end <= to);
    const pieceTerms = [...new Set(pieceSpans.map((s) => s.term))];
    if (pieceTerms.length > 0) fragments.push({ terms: pieceTerms, spans: pieceSpans, negatedTerms: negatedTerms(text.slice(from, to), pieceSpans.map((s) => ({ ...s, start: s.start - from, end: s.end - from }))) });
    from = to;
  };
  const quoted = quotedRanges(text);
  for (const m of text.matchAll(CLAUSE_BREAK)) if (!quoted.some(([a, z]) => m.index > a && m.index < z)) cut(m.index);
  cut(text.length);
  // A leading one-word fragment ("For the latter, she …", "By 2018, he …") is an adverbial of the next clause.
  while (fragments.length > 1 && fragments[0]!.terms.length < 2) {
    const [lead, next] = fragments.splice(0, 2) as [ClaimFragment, ClaimFragment];
    fragments.unshift({ terms: [...new Set([...lead.terms, ...next.terms])], spans: [...lead.spans, ...next.spans], negatedTerms: new Set([...lead.negatedTerms, ...next.negatedTerms]) });
  }
  const entities = new Set<string>();
  spans.forEach((s) => {
    if (!s.capitalized) return;
    // A capitalised content word names something, the claim's first word included: it is usually the
    // subject ("Eastern bumblebees …" must not ride on evidence about western honeybees). Months and
    // weekdays are dates, checked as such.
    if (!CALENDAR_WORDS.has(s.term)) entities.add(s.term);
  });
  const numbers = spans.filter((s) => s.number).map((s, _, all) => {
    const alternatives: string[] = [];
    const prev = all[all.indexOf(s) - 1];
    // "2018–19", "1914-18": the second part of a year range is a year too.
    if (prev && /^\d{4}$/.test(prev.term) && /^\d{2}$/.test(s.term) && /^\s*[-–—/]\s*$/.test(text.slice(prev.end, s.start))) {
      alternatives.push(prev.term.slice(0, 2) + s.term);
    }
    return { term: s.term, alternatives };
  });
  const quantities: Quantity[] = [];
  spans.forEach((s, i) => {
    if (!s.number || /^(1[5-9]|20)\d\d$/.test(s.term)) return;
    // "24/7", "9/11", "3/4": one expression of two figures, not a count of the word after it (both figures are still checked).
    const prev = spans[i - 1];
    if (prev?.number && text.slice(prev.end, s.start) === '/') return;
    const after = spans[i + 1];
    if (after?.number && text.slice(s.end, after.start) === '/') return;
    const next = spans[i + 1];
    const adjacent = next !== undefined && !next.number && /^[\s-]*$/.test(text.slice(s.end, next.start));
    // "66 playwrights, poets, songwriters and novelists": the figure counts the whole enumeration, not its first item.
    const unit = adjacent && !ENUMERATION.test(text.slice(next.start)) ? next.term : undefined;
    quantities.push({ value: s.term, unit, alternatives: numbers.find((n) => n.term === s.term)?.alternatives ?? [] });
  });
  const compared: string[] = [];
  for (const m of text.matchAll(COMPARISON)) {
    const next = spans.find((s) => s.start >= m.index + m[0].length);
    if (next) compared.push(next.term);
  }
  const joined: ClaimReading['joined'] = [];
  for (let i = 0; i + 1 < spans.length; i++) {
    const a = spans[i]!;
    const b = spans[i + 1]!;
    const gap = text.slice(a.end, b.start);
    // An initialism's last period counts as part of it: "The A.V. Club" is "avclub" written as one word.
    if (a.number || b.number || a.term === b.term || !(JOIN_GAP.test(gap) || (gap === '. ' && text.slice(a.start, a.end).includes('.')))) continue;
    const whole = contentTokens(text.slice(a.start, a.end) + text.slice(b.start, b.end))[0];
    // The stem must keep three letters of the second word: "Arabia national" stems to "arabian", another word.
    if (whole === undefined || whole.length < a.end - a.start + 3 || joined.some((j) => j.whole === whole)) continue;
    joined.push({ whole, parts: [a.term, b.term] });
  }
  const yearRelations = [...text.toLowerCase().matchAll(YEAR_RELATION)].map((m) => ({ relation: m[1]!, year: m[2]! }));
  const head = spans[0];
  const lead = head && head.capitalized && !/[\p{L}\p{N}]/u.test(text.slice(0, head.start)) ? head.term : undefined;
  return { text, spans, terms, fragments, entities, aliases: entityAliases(spans), lead, quantities, compared, yearRelations, numbers, joined, passive: PASSIVE.test(text), connectives: connectiveTerms(text, spans) };
}

/**
 * Adverbs that only link a sentence to the one before it or place it in a
 * sequence: any position. "initially", "previously", "finally" (which say
 * when) and the causal "thus", "therefore", "consequently" (rule 4's to
 * judge) are not among them; "also", "then", "again" are stop words already.
 */
const CONNECTIVE = /^(?:however|eventually|ultimately|subsequently|meanwhile|moreover|furthermore|nevertheless|nonetheless|additionally|afterwards?|thereafter)$/i;
/** "later" before a verb ("later released", "was later jailed", "later became"): the sequence, not a time ("a week later", "the later 15th century"). */
const LATER_BEFORE_VERB = /^\s+(?:\p{L}{2,}ed|was|were|is|are|be|been|had|has|have|became|becomes|become|began|went|won|took|made|gave|wrote|moved|joined|returned|founded)\b/iu;
/** A clause's start: the text's start, or a sentence or clause mark, with only quotes or brackets after it. */
const CLAUSE_START = /(?:^|[.;:!?]\s*)["“'(\[]?\s*$/u;
/** Where a connective phrase may be set off: at a clause's start or after a comma. */
const SET_OFF_BEFORE = /(?:^|[.;:!?,]\s*)["“'(\[]?\s*$/u;
/**
 * Phrases that link, by their last word and the words before it: "As a
 * result,", "In addition,", "For example,", "For instance,", "In fact,",
 * "Of course,", "In turn,", "On the other hand,". They count only set off
 * by a comma at a clause's start or between commas ("The club, for example,
 * …"): "the result of the vote", "in addition to her role", "an example of"
 * are content.
 */
const LINKING_PHRASES: ReadonlyMap<string, RegExp> = new Map(
  [['result', 'as an?'], ['addition', 'in'], ['example', 'for'], ['instance', 'for'], ['fact', 'in'], ['course', 'of'], ['turn', 'in'], ['hand', 'on the other']].map(
    ([word, lead]) => [word!, new RegExp(`\\b${lead!.replace(/ /g, '\\s+')}\\s+$`, 'i')] as [string, RegExp],
  ),
);

/**
 * The claim's terms that stand only as discourse connectives (every
 * occurrence: a word the claim also uses for content is not one): the
 * adverbs of CONNECTIVE anywhere, "later" before a verb or as "Later," at a
 * clause's start, and the last word of a LINKING_PHRASES phrase set off by
 * commas.
 */
export function connectiveTerms(text: string, spans: readonly TokenSpan[]): Set<string> {
  const linking = new Set<string>();
  const content = new Set<string>();
  for (const s of spans) {
    const word = text.slice(s.start, s.end).toLowerCase();
    let connective = false;
    if (CONNECTIVE.test(word)) connective = true;
    else if (word === 'later') {
      const after = text.slice(s.end, s.end + 24);
      connective = LATER_BEFORE_VERB.test(after) || (/^\s*,/.test(after) && CLAUSE_START.test(text.slice(0, s.start)));
    } else {
      const lead = LINKING_PHRASES.get(word);
      if (lead !== undefined && /^\s*,/.test(text.slice(s.end, s.end + 3))) {
        const before = text.slice(0, s.start);
        const m = lead.exec(before);
        connective = m !== null && SET_OFF_BEFORE.test(before.slice(0, m.index));
      }
    }
    (connective ? linking : content).add(s.term);
  }
  for (const t of content) linking.delete(t);
  return linking;
}
