/**
 * Support of one claim by one evidence window, decided per fragment and
 * offline: IDF-weighted recall of the claim's tokens in the window, then
 * checks that cap the score below the supported threshold when the window
 * does not say what the claim says even though it holds its words:
 *
 * Recall counts the words of the window and of the source's title (shown
 * with the window in the footer's source row), the dates the window gives
 * relative to its own dateline ("Wednesday" under "March 2, 2017": March 1,
 * 2017; text/relative-dates.ts), and leaves out a discourse connective of
 * the claim ("However", "later released") that the window does not say
 * (`ClaimReading.connectives`; decision 205).
 *
 * - `fragment_unsupported`: a clause of the claim is not itself covered
 *   (a rider such as "…, and they also produce gold");
 * - `entity_missing`: a name the claim uses is in neither the window nor
 *   the source title (an entity swap: "Eastern bumblebees …");
 * - `number_missing` / `quantity_mismatch`: a figure or year is absent, or
 *   present but counting something else ("5 years" vs "5 films"), or a
 *   figure without its magnitude ("$9 million" against "December 9");
 * - `negation_mismatch`: the sentence that covers a clause negates other
 *   words than the clause does ("are dead and cannot recover" against "are
 *   not dead and can recover");
 * - `role_order`: the clause's words stand in the evidence in a clearly
 *   different order (arguments swapped: "Their hive forages … of western
 *   honeybees"), unless exactly one side is passive, where order flips; a
 *   phrase moved past its neighbour is a paraphrase, not a swap;
 * - `comparison_missing`: what the claim compares with ("than coffee") is
 *   not in the window;
 * - `date_relation_mismatch`: a year tied to "after", "since", "before"…
 *   is not tied the same way in the window ("after 2019" against "between
 *   2000 and 2019"); "since", "by", "until"… also hold for an event the
 *   window dates in that year;
 * - `scattered_words`: the window holds the claim's words only one per
 *   sentence ("Recent Poll", "Comments are now closed", "won the race"):
 *   vocabulary gathered across a span, not a statement of the claim;
 * - `word_substituted`: a claim word the window lacks stands where the
 *   sentence has another word between the same neighbours ("brewed green
 *   tea" against "brewed black tea", "500 billion neurons" against "500
 *   million neurons", "colder than" against "warmer than").
 *
 * Every constant is calibrated on the WiCE dev split; docs/attr-grounding.md
 * gives each one with the figures behind it.
 */
import { DEFAULT_ACCEPTANCE_POLICY } from '../../verify/acceptance-policy.ts';
import { relativeDateFigures } from '../text/relative-dates.ts';
import { stem, type TokenSpan } from '../text/tokenizer.ts';
import { APPROXIMATE, BOUNDED, CAUSAL, CERTAIN, EFFECT_VERB, GENERAL, PARTICULAR, POSSIBLE, PROBABLE, UNIVERSAL } from '../warrant/lexicon.ts';
import { YEAR_RELATION, type ClaimReading } from './claim-reading.ts';

/** One word of relation, modality, scope or numeric force (the warrant lexicon's words). */
const FORCE_WORD = new RegExp(
  `^(?:${[CAUSAL, EFFECT_VERB, CERTAIN, PROBABLE, POSSIBLE, UNIVERSAL, GENERAL, PARTICULAR, APPROXIMATE, BOUNDED].map((r) => `(?:${r.source})`).join('|')})$`,
);

/** A clause whose own weighted recall is below this is not supported. */
export const FRAGMENT_MIN_RECALL = 0.4;
/** Share of order-inverted pairs among a clause's matched words above which the arguments count as swapped. */
export const ROLE_CROSSING_MAX = 0.5;
/** A clause needs this many matched words before its order is judged… */
export const ROLE_MIN_MATCHED = 3;
/** …and one sentence must hold this share of its words (the same words, rearranged: the swap attack). */
export const ROLE_MIN_COVERAGE = 0.8;
/** The sentence covering a clause must hold this share of its words before its polarity is compared. */
export const NEGATION_MIN_COVERAGE = 0.6;
/** …and this share before a word in the claim that stands where the sentence has another counts as substituted. */
export const SUBSTITUTION_MIN_COVERAGE = 0.6;
/** Pairs of neighbouring claim words that must be broken apart in the sentence for an argument swap. */
export const ROLE_MIN_BROKEN = 2;
/** …and, with them, this many of its words must stand in the sentence in exactly the reverse order (see reversedRun). */
export const ROLE_MIN_REVERSED = 3;
/** Content tokens within which two claim neighbours must follow each other in the sentence. */
export const NEIGHBOUR_REACH = 3;
/**
 * Inside a clause, at most this many other words may stand between the
 * neighbours of a substituted word; at the clause's start, before its next
 * word in the sentence. The clause's end has no such limit (see `substituted`).
 */
export const SUBSTITUTION_GAP = 2;
/** Letters a name and its variant must share (see hasVariant). */
export const ENTITY_PREFIX = 5;
/** Tokens after a number within which its unit must follow in the evidence. */
export const QUANTITY_REACH = 3;
/** A window sentence speaks to the claim when it holds at least this many of its distinct words together (see coherentRecall)… */
export const COHERENT_MIN_WORDS = 2;
/** …and a supported window holds at least this share of the claim's weight in such sentences, its names and figures, and its title. */
export const COHERENT_MIN_RECALL = 0.35;
/** Recall at which a window that passes every check is supported (calibrated on the WiCE dev split). */
export const SUPPORTED_RECALL = 0.6;
/** The support score the default acceptance policy requires. */
const SUPPORTED_SCORE = DEFAULT_ACCEPTANCE_POLICY.min_support_score;
/** Score ceiling for a window that fails a hard check: `partially_supported` at best, never `supported`. */
export const FAILED_CHECK_CAP = 0.5;
/** Score ceiling for a window that leaves a clause unsupported. */
export const FRAGMENT_CAP = 0.6;

/**
 * The support score of a window from its recall: piecewise linear, so that
 * recall SUPPORTED_RECALL lands exactly on the acceptance policy's 0.65 and
 * 0 and 1 stay where they are. Monotone: a better window never scores less.
 */
export function calibratedScore(recall: number): number {
  return recall >= SUPPORTED_RECALL
    ? SUPPORTED_SCORE + ((1 - SUPPORTED_SCORE) * (recall - SUPPORTED_RECALL)) / (1 - SUPPORTED_RECALL)
    : (SUPPORTED_SCORE * recall) / SUPPORTED_RECALL;
}

export interface WindowSentence {
  /** Lower-cased sentence text. */
  lower: string;
  spans: readonly TokenSpan[];
  /** Content tokens a negation cue applies to (claim-reading.ts `negatedTerms`). */
  negatedTerms: ReadonlySet<string>;
  passive: boolean;
}

export interface WindowReading {
  terms: ReadonlySet<string>;
  sentences: readonly WindowSentence[];
  titleTerms: ReadonlySet<string>;
  /** Content tokens of the whole source the window is from. */
  pageTerms?: ReadonlySet<string>;
  /** True for a word the corpus writes mostly in lower case (CorpusIndex.ordinaryWord). */
  ordinaryWord?: (term: string) => boolean;
}

export interface SupportVerdict {
  /** Weighted recall of the claim's tokens in the window and the source's title. */
  recall: number;
  /** The support score: `calibratedScore(recall)`, capped when a check fails. */
  score: number;
  flags: string[];
}

export function judgeSupport(claim: ClaimReading, weight: (term: string) => number, window: WindowReading): SupportVerdict {
  const flags: string[] = [];
  // A word the claim writes as two ("radio carbon") and the window as one ("radiocarbon") says both claim terms.
  const joined = claim.joined.filter((j) => window.terms.has(j.whole) || window.titleTerms.has(j.whole));
  const has = withDates(claim, window, withJoined(joined, window.terms));
  const titleTerms = withJoined(joined, window.titleTerms);
  // The source's title is shown with every window of it (the footer's source row): its words count as said (decision 151).
  const said = (t: string) => has.has(t) || titleTerms.has(t);
  // A discourse connective ("However", "later released") counts where the window has it and is not missed where it does not.
  const optional = claim.connectives;
  let total = 0;
  let hit = 0;
  for (const t of claim.terms) {
    const w = weight(t);
    if (said(t)) hit += w;
    else if (optional.has(t)) continue;
    total += w;
  }
  const recall = total === 0 ? 0 : hit / total;

  const page = window.pageTerms;
  // (The page's terms are many: asked, not copied.)
  const pageHas = (t: string) => page !== undefined && (page.has(t) || claim.joined.some((j) => j.parts.includes(t) && page.has(j.whole)));
  const onPage = (t: string) => has.has(t) || titleTerms.has(t) || pageHas(t);
  // Names the window writes another way (a demonym, another name of the country): not a word substituted by another.
  const renamed = new Set<string>();
  for (const e of claim.entities) {
    // A capital by position only: the corpus writes the word in lower case ("Instead of …", "Since its …").
    if (e === claim.lead && window.ordinaryWord?.(e)) continue;
    // Another name of the same country or nation on the page ("United States" / "American"; entity-aliases.ts).
    if (claim.aliases.some((a) => a.terms.includes(e) && a.others.some((o) => o.every(onPage)))) {
      if (claim.aliases.some((a) => a.terms.includes(e) && a.others.some((o) => o.every((t) => has.has(t))))) renamed.add(e);
      continue;
    }
    if (!has.has(e) && hasVariant(has, e)) renamed.add(e);
    if (!has.has(e) && !titleTerms.has(e) && !hasVariant(has, e) && !hasVariant(titleTerms, e) && !pageHas(e)) {
      flags.push('entity_missing');
      break;
    }
  }
  for (const s of claim.numbers) {
    // The title is on display with the window (decision 151); its figures count as said, as its words do (decision 166).
    if (!said(s.term) && !s.alternatives.some((a) => said(a))) {
      flags.push('number_missing');
      break;
    }
  }
  if (!flags.includes('number_missing')) {
    for (const q of claim.quantities) {
      // A magnitude is part of its figure ("$9 million"): it must stand with it even when the window lacks the word.
      if (q.unit !== undefined && (has.has(q.unit) || MAGNITUDES.has(q.unit)) && !window.sentences.some((s) => [q.value, ...q.alternatives].some((v) => countsWith(s, v, q.unit!)))) {
        flags.push('quantity_mismatch');
        break;
      }
    }
  }

  if (claim.compared.some((t) => !has.has(t))) flags.push('comparison_missing');
  for (const r of claim.yearRelations) {
    if (!window.sentences.some((s) => relationHolds(s.lower, r.relation, r.year))) {
      flags.push('date_relation_mismatch');
      break;
    }
  }

  if (recall >= SUPPORTED_RECALL && coherentRecall(claim, joined, weight, window, titleTerms, total) < COHERENT_MIN_RECALL) flags.push('scattered_words');

  let fragmentFailed = false;
  const flag = (name: string) => {
    if (!flags.includes(name)) flags.push(name);
  };
  for (const f of claim.fragments) {
    let fTotal = 0;
    let fHit = 0;
    for (const t of f.terms) {
      const w = weight(t);
      if (said(t)) fHit += w;
      else if (optional.has(t)) continue;
      fTotal += w;
    }
    if (fTotal > 0 && fHit / fTotal < FRAGMENT_MIN_RECALL) fragmentFailed = true;
    const best = bestSentence(joined, window.sentences, f.terms);
    if (best === undefined) continue;
    // Polarity, order and substitutions are only judged against a sentence plainly about the clause.
    const about = best.matched / f.terms.length;
    const sentence = best.sentence;
    if (about >= NEGATION_MIN_COVERAGE && !sameNegation(f.negatedTerms, sentence.negatedTerms, f.terms)) flag('negation_mismatch');
    if (about >= ROLE_MIN_COVERAGE && claim.passive === sentence.passive && (swapped(f.terms, sentence.spans) || (brokenNeighbours(f.spans, sentence.spans) && reversedRun(f.terms, sentence.spans) >= ROLE_MIN_REVERSED))) {
      flag('role_order');
    }
    if (about >= SUBSTITUTION_MIN_COVERAGE && substituted(claim.text, f.spans, sentence.spans, (t) => has.has(t) || renamed.has(t) || optional.has(t), new Set(claim.terms))) flag('word_substituted');
  }
  if (fragmentFailed) flags.push('fragment_unsupported');

  let score = calibratedScore(recall);
  if (flags.some((f) => f !== 'fragment_unsupported')) score = Math.min(score, FAILED_CHECK_CAP);
  else if (flags.includes('fragment_unsupported')) score = Math.min(score, FRAGMENT_CAP);
  return { recall, score, flags };
}

/**
 * The share of the claim's weight a window holds in sentences that say two
 * or more of its words together (or in the title): a word that stands alone
 * in its sentence counts only when it is one of the claim's names or
 * figures (a dateline, a caption, a heading: the one name or figure a
 * neighbouring sentence adds). "The polling was close and no candidate was
 * a favourite" gathered from "Recent Poll", "Comments are now closed", "…
 * won the race with 74 %" and "did not field a candidate" says nothing of
 * the claim, however much of its vocabulary the span holds.
 */
function coherentRecall(claim: ClaimReading, joined: ClaimReading['joined'], weight: (term: string) => number, window: WindowReading, titleTerms: ReadonlySet<string>, total: number): number {
  if (total === 0) return 0;
  const named = new Set<string>(claim.entities);
  for (const n of claim.numbers) named.add(n.term);
  const claimTerms = new Set(claim.terms);
  const held = new Set<string>();
  for (const t of claim.terms) if (titleTerms.has(t)) held.add(t);
  for (const s of window.sentences) {
    const hits = new Set<string>();
    for (const sp of s.spans) {
      if (claimTerms.has(sp.term)) hits.add(sp.term);
      for (const j of joined) if (j.whole === sp.term) for (const p of j.parts) hits.add(p);
    }
    for (const t of hits) if (hits.size >= COHERENT_MIN_WORDS || named.has(t)) held.add(t);
  }
  let hit = 0;
  for (const t of claim.terms) if (held.has(t)) hit += weight(t);
  return hit / total;
}

/**
 * Words that scale the figure before them: "$9 million" is nine million, so
 * the 9 of "December 9" does not say it (decision 197).
 */
const MAGNITUDES: ReadonlySet<string> = new Set(['thousand', 'million', 'billion', 'trillion']);

/**
 * True when `value` is followed by `unit` within QUANTITY_REACH tokens
 * somewhere in the sentence, or stands right after it with nothing but a
 * space between: "1 February" is "February 1", "the fifth season" is
 * "season 5" (but "3 kilometres" is not "kilometres of 3").
 */
function countsWith(sentence: WindowSentence, value: string, unit: string): boolean {
  const spans = sentence.spans;
  for (let i = 0; i < spans.length; i++) {
    if (spans[i]!.term !== value) continue;
    const before = spans[i - 1];
    if (before !== undefined && before.term === unit && /^\s+$/.test(sentence.lower.slice(before.end, spans[i]!.start))) return true;
    for (let k = i + 1; k <= i + QUANTITY_REACH && k < spans.length; k++) if (spans[k]!.term === unit) return true;
  }
  return false;
}

/**
 * The window's terms with the dates it gives relative to its own dateline
 * ("Wednesday" under "March 2, 2017" also says "march", "1", "2017":
 * relative-dates.ts); the same set when it gives none.
 */
function withDates(claim: ClaimReading, window: WindowReading, terms: ReadonlySet<string>): ReadonlySet<string> {
  // Only a figure the window does not write can be one it gives as a relative date.
  if (claim.numbers.every((n) => terms.has(n.term) || window.titleTerms.has(n.term))) return terms;
  const dated = relativeDateFigures(window.sentences.map((s) => s.lower).join('\n'));
  if (dated.years.length === 0) return terms;
  const out = new Set(terms);
  for (const y of dated.years) out.add(y);
  for (const d of dated.values) out.add(d);
  for (const m of dated.months) out.add(stem(m));
  return out;
}

/**
 * The terms with the claim's two-word forms a one-word term of `terms` says
 * ("radiocarbon" says "radio" and "carbon"; `joined`: those the window writes); the same set when it says none.
 */
function withJoined(joined: ClaimReading['joined'], terms: ReadonlySet<string>): ReadonlySet<string> {
  let out: Set<string> | undefined;
  for (const j of joined) {
    if (!terms.has(j.whole) || (terms.has(j.parts[0]) && terms.has(j.parts[1]))) continue;
    out ??= new Set(terms);
    for (const p of j.parts) out.add(p);
  }
  return out ?? terms;
}

/** The window sentence holding the most of the clause's distinct words (first on ties), with that count. */
function bestSentence(joined: ClaimReading['joined'], sentences: readonly WindowSentence[], terms: readonly string[]): { sentence: WindowSentence; matched: number } | undefined {
  let best: WindowSentence | undefined;
  let bestCount = 0;
  for (const s of sentences) {
    let n = 0;
    if (joined.length === 0) {
      for (const t of terms) if (s.spans.some((x) => x.term === t)) n++;
    } else {
      const said = withJoined(joined, new Set(s.spans.map((x) => x.term)));
      for (const t of terms) if (said.has(t)) n++;
    }
    if (n > bestCount) {
      best = s;
      bestCount = n;
    }
  }
  return best === undefined ? undefined : { sentence: best, matched: bestCount };
}

/**
 * The same name in another form: a demonym or inflection sharing all but
 * the last letter of the shorter word and at least ENTITY_PREFIX letters
 * ("canadian" ~ "canada", "libyan" ~ "libya"; not "austria" ~ "australia").
 */
function hasVariant(terms: ReadonlySet<string>, entity: string): boolean {
  if (entity.length < ENTITY_PREFIX) return false;
  const single = singleLetters(entity);
  for (const t of terms) {
    // The same name spelt with a doubled letter or without ("Paterson" / "Patterson").
    if (Math.abs(t.length - entity.length) === 1 && t.charCodeAt(0) === entity.charCodeAt(0) && singleLetters(t) === single) return true;
    if (t.length < ENTITY_PREFIX - 1 || t.charCodeAt(0) !== entity.charCodeAt(0)) continue;
    const shorter = Math.min(t.length, entity.length);
    let common = 0;
    while (common < shorter && t.charCodeAt(common) === entity.charCodeAt(common)) common++;
    if (common >= ENTITY_PREFIX && common >= shorter - 1) return true;
  }
  return false;
}

/** A word with every run of one letter written once ("patterson" → "paterson"). */
function singleLetters(word: string): string {
  return word.replace(/(\p{L})\1+/gu, '$1');
}

/**
 * Kendall-style disorder: among the clause's words found in the sentence
 * (first occurrence), the share of pairs whose order is inverted. A moved
 * date or adverb inverts few pairs; swapped subject and object invert most.
 */
function swapped(terms: readonly string[], spans: readonly TokenSpan[]): boolean {
  const positions: number[] = [];
  for (const t of terms) {
    const at = spans.findIndex((s) => s.term === t);
    if (at >= 0) positions.push(at);
  }
  const n = positions.length;
  if (n < ROLE_MIN_MATCHED) return false;
  let inverted = 0;
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) if (positions[i]! > positions[j]!) inverted++;
  return inverted / ((n * (n - 1)) / 2) > ROLE_CROSSING_MAX;
}

/**
 * The longest run of the clause's words (first occurrences) that the
 * sentence has in exactly the reverse order. Exchanging two arguments
 * around what stays in place ("Mainz developed … in Johannes Gutenberg"
 * against "Johannes Gutenberg developed … in Mainz") reverses three blocks:
 * a run of three. Moving one phrase past its neighbour ("won its seventh
 * consecutive Atlanta Veterans Day, Presidents' Trophy" against "earned its
 * seventh consecutive President's Trophy for … the Atlanta Veterans' Day
 * Parade") reverses two: a run of two.
 */
function reversedRun(terms: readonly string[], spans: readonly TokenSpan[]): number {
  const at: number[] = [];
  for (const t of terms) {
    const p = spans.findIndex((s) => s.term === t);
    if (p >= 0) at.push(p);
  }
  // Longest strictly decreasing subsequence, O(n²) on a clause's handful of words.
  const best = at.map(() => 1);
  let longest = at.length > 0 ? 1 : 0;
  for (let i = 1; i < at.length; i++) {
    for (let j = 0; j < i; j++) if (at[j]! > at[i]! && best[j]! + 1 > best[i]!) best[i] = best[j]! + 1;
    longest = Math.max(longest, best[i]!);
  }
  return longest;
}

/** The clause and the sentence negate the same claim words. */
function sameNegation(claimNegated: ReadonlySet<string>, sentenceNegated: ReadonlySet<string>, claimTerms: readonly string[]): boolean {
  for (const t of claimNegated) if (!sentenceNegated.has(t)) return false;
  for (const t of sentenceNegated) if (claimTerms.includes(t) && !claimNegated.has(t)) return false;
  return true;
}

/** Positions of each term in the sentence's token sequence. */
function positions(spans: readonly TokenSpan[]): Map<string, number[]> {
  const at = new Map<string, number[]>();
  spans.forEach((s, i) => {
    const list = at.get(s.term);
    if (list) list.push(i);
    else at.set(s.term, [i]);
  });
  return at;
}

/**
 * Neighbouring claim words (consecutive among those the sentence holds)
 * that the sentence never has in that order within NEIGHBOUR_REACH tokens.
 * Swapping two arguments breaks the pairs around both of them; moving a
 * date or a clause breaks one.
 */
function brokenNeighbours(claim: readonly TokenSpan[], sentence: readonly TokenSpan[]): boolean {
  const at = positions(sentence);
  const seq = claim.filter((s) => at.has(s.term)).map((s) => s.term);
  let broken = 0;
  for (let i = 0; i + 1 < seq.length; i++) {
    const x = seq[i]!;
    const y = seq[i + 1]!;
    if (x === y) continue;
    const ys = at.get(y)!;
    if (!at.get(x)!.some((p) => ys.some((q) => q > p && q - p <= NEIGHBOUR_REACH))) broken++;
  }
  return broken >= ROLE_MIN_BROKEN;
}

/**
 * A claim word missing from the window where the sentence says something
 * else in its place (words are content tokens: stop words do not count):
 *
 * - inside the clause, its two neighbours stand in the sentence in order
 *   with one to SUBSTITUTION_GAP other words between them, none of them a
 *   claim word ("brewed green tea" against "brewed black tea");
 * - as the clause's first word, the next claim word is the sentence's
 *   second or third word (at most SUBSTITUTION_GAP words before it) and the
 *   word just before it is not a claim word ("The rye starter" against
 *   "The sourdough starter");
 * - as the clause's last word, the word right after the previous claim word
 *   is not a claim word, however much of the sentence follows it: a
 *   clause's end is seldom its sentence's ("the largest collection in his
 *   time" against "the largest collection in the world, and it …"). Holding
 *   the end to the start's limit (the neighbour among the sentence's last
 *   three words) was measured and not adopted: docs/attr-grounding.md §4.
 */
function substituted(claimText: string, claim: readonly TokenSpan[], sentence: readonly TokenSpan[], said: (term: string) => boolean, claimTerms: ReadonlySet<string>): boolean {
  const at = positions(sentence);
  for (let i = 0; i < claim.length; i++) {
    const m = claim[i]!;
    // Numbers are the number checks' to judge (with their alternative forms).
    if (said(m.term) || m.number) continue;
    // Words of force ("causes", "always", "may", "about") are rule 4's to judge, against the evidence's own force.
    if (FORCE_WORD.test(claimText.slice(m.start, m.end).toLowerCase())) continue;
    // A clause whose subject is a pronoun ("He reportedly grew close …", "…, she was the only member of …") has
    // no subject word to swap: whatever the sentence puts before the next claim word ("The three grew close …")
    // stands for the pronoun, not for the clause's first content word.
    if (i === 0 && SUBJECT_PRONOUN.test(claimText.slice(previousEnd(claimText, m.start), m.start))) continue;
    // At the clause's start the sentence's start stands in for the missing neighbour (position -1); at its end,
    // the sentence's end (so only "some word follows the neighbour" is asked of it).
    const a = i === 0 ? [-1] : at.get(claim[i - 1]!.term);
    const b = i + 1 === claim.length ? [sentence.length] : at.get(claim[i + 1]!.term);
    if (!a || !b || (i === 0 && i + 1 === claim.length)) continue;
    for (const p of a) {
      for (const q of b) {
        const gap = q - p - 1;
        if (gap < 1) continue;
        // Inside the clause the replacement is every word between the neighbours; at an end, the word next to the neighbour.
        const from = p + 1;
        const to = i === 0 ? q : i + 1 === claim.length ? p + 2 : q;
        if (i !== 0 && i + 1 !== claim.length && gap > SUBSTITUTION_GAP) continue;
        if (i === 0 && gap > SUBSTITUTION_GAP) continue;
        let foreign = true;
        for (let k = i === 0 ? q - 1 : from; k < to; k++) if (claimTerms.has(sentence[k]!.term)) foreign = false;
        if (foreign) return true;
      }
    }
  }
  return false;
}

/** A subject pronoun among the words before a clause's first content word (see `substituted`). */
const SUBJECT_PRONOUN = /(?:^|[^\p{L}])(?:he|she|it|they|we|i|you)(?![\p{L}])/iu;

/** Start of the stretch before `at` that belongs to the same clause: just after the last comma, semicolon, colon or dash. */
function previousEnd(text: string, at: number): number {
  const before = text.slice(0, at);
  const cut = Math.max(...[',', ';', ':', '–', '—', ' - '].map((p) => before.lastIndexOf(p)));
  return cut < 0 ? 0 : cut + 1;
}

/**
 * Relations whose year is part of the span they name: "since 2019", "from
 * 2019", "by 2018", "until 2007", "around 1450" all hold for an event dated
 * in that year. "before" and "after" exclude it.
 */
const INCLUSIVE_RELATIONS: ReadonlySet<string> = new Set(['since', 'from', 'by', 'until', 'till', 'through', 'circa', 'around']);
const YEAR_MENTION = /\b((?:1[5-9]|20)\d\d)\b/g;

/**
 * The sentence agrees with "<relation> <year>": it ties the year with the
 * same relation word (at most two words apart), or, for an inclusive
 * relation, dates something in that year without tying it to another
 * relation ("hired on May 20, 2019" agrees with "head coach since 2019";
 * "between 2000 and 2019" does not agree with "after 2019", nor "until
 * 2019" with "since 2019").
 */
function relationHolds(lower: string, relation: string, year: string): boolean {
  let tiedOtherwise = false;
  for (const m of lower.matchAll(YEAR_RELATION)) {
    if (m[2] !== year) continue;
    if (m[1] === relation) return true;
    tiedOtherwise = true;
  }
  if (!INCLUSIVE_RELATIONS.has(relation) || tiedOtherwise) return false;
  for (const m of lower.matchAll(YEAR_MENTION)) if (m[1] === year) return true;
  return false;
}
