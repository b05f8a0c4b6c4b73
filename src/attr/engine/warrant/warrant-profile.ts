/**
 * Warrant profile: the force with which a text asserts something (relation,
 * modality, scope, temporal and numeric force), and the comparison of a
 * claim's force with its evidence's. A claim may be as strong as its
 * evidence, never stronger (rules 4 and 11).
 */
import type { WarrantProfile } from '../../schemas/attribution-response.ts';
import {
  APPROXIMATE_FIGURE, BOUNDED_FIGURE, CAUSAL, CERTAIN, CORRELATIONAL, CORRELATIONAL_PHRASE, EFFECT_VERB, GENERAL, MONTH_MAY, PARTICULAR, POSSIBLE, PROBABLE, TEMPORAL_MARKERS, UNIVERSAL,
} from './lexicon.ts';
import { numberMentions, type NumberMentions } from './numbers.ts';
import { stripCitationNoise } from '../text/citation-markers.ts';
import { stripLinks } from '../text/links.ts';
import { relativeDateFigures } from '../text/relative-dates.ts';
import { segmentSentences } from '../text/sentence-segmenter.ts';
import { contentTokens, tokenSpans } from '../text/tokenizer.ts';

/** Citation markers and links carry no warrant; "[1]" is not the number one. */
function body(text: string): string {
  return stripLinks(stripCitationNoise(text));
}

/** Case-insensitive, non-global twin of TEMPORAL_MARKERS (a global regex keeps state between tests). */
const TEMPORAL_MARKER = new RegExp(TEMPORAL_MARKERS.source, 'i');

/** What the warrant rules need to know about one text: its profile and the numbers it mentions. */
export interface WarrantReading {
  profile: WarrantProfile;
  numbers: NumberMentions;
  /** The text read (citation markers and links removed). */
  text: string;
  /** Its content tokens and, for a text of several sentences, each sentence's (filled on first use). */
  terms?: ReadonlySet<string>;
  sentences?: ReadonlyArray<{ text: string; terms: ReadonlySet<string> }>;
}

/** Reads the force of a text once; the profile and the mismatch flags both derive from this. */
export function readWarrant(rawText: string): WarrantReading {
  const text = body(rawText);
  const t = text.replace(MONTH_MAY, 'month').toLowerCase();
  const nums = numberMentions(text);
  return {
    profile: {
      relation: relation(t),
      modality: CERTAIN.test(t) ? 'certain' : POSSIBLE.test(t) ? 'possible' : PROBABLE.test(t) ? 'probable' : 'asserted',
      scope: UNIVERSAL.test(t) ? 'universal' : GENERAL.test(t) ? 'general' : PARTICULAR.test(t) ? 'particular' : 'unspecified',
      temporal: TEMPORAL_MARKER.test(t) ? 'present_relative' : nums.years.length > 0 ? 'dated' : 'atemporal',
      numeric: nums.values.length === 0 ? 'none' : APPROXIMATE_FIGURE.test(t) ? 'approximate' : BOUNDED_FIGURE.test(t) ? 'bounded' : 'exact',
    },
    numbers: nums,
    text,
  };
}

/** A sentence of the evidence carries the claim when it holds at least this share of the claim's distinct tokens… */
export const CARRYING_SHARE = 0.25;
/** …and at least this many of them (one shared word of a short claim is a coincidence: "allowed" / "allowing outsiders"). */
export const CARRYING_MIN_TERMS = 2;
/** A scope word ("all", "never", "several", "most") governs the content words that start within this many characters after it. */
export const SCOPE_REACH = 24;

const SCOPE_CUES = { universal: globalOf(UNIVERSAL), general: globalOf(GENERAL), particular: globalOf(PARTICULAR) } as const;

function globalOf(re: RegExp): RegExp {
  return new RegExp(re.source, 'g');
}

/**
 * The content tokens a text's scope word governs: those starting within
 * SCOPE_REACH characters after each cue of its scope ("all public schools in
 * the country" → public, school, countri; "have never been identified" →
 * identifi). Empty for a text of unspecified scope.
 */
export function scopeGoverned(text: string, scope: WarrantProfile['scope']): Set<string> {
  const out = new Set<string>();
  if (scope === 'unspecified') return out;
  const lower = text.replace(MONTH_MAY, 'month').toLowerCase();
  const spans = tokenSpans(text);
  for (const m of lower.matchAll(SCOPE_CUES[scope])) {
    const end = m.index + m[0].length;
    for (const sp of spans) if (sp.start >= end && sp.start - end <= SCOPE_REACH) out.add(sp.term);
  }
  return out;
}

function termsOf(reading: WarrantReading): ReadonlySet<string> {
  return (reading.terms ??= new Set(contentTokens(reading.text)));
}

interface CarryingSentence {
  text: string;
  profile: WarrantProfile;
  /** The claim's tokens this sentence holds. */
  held: ReadonlySet<string>;
}

/**
 * The sentences of a multi-sentence evidence span that carry the claim
 * (CARRYING_SHARE of its tokens), each with its own profile; undefined for
 * a one-sentence span or when no sentence carries the claim. A window chosen
 * for its coverage may hold a neighbouring sentence about something else;
 * its "may" or "all" says nothing about the claim.
 */
function carryingSentences(claim: WarrantReading, evidence: WarrantReading): CarryingSentence[] | undefined {
  const sentences = (evidence.sentences ??= segmentSentences(evidence.text).map((s) => ({ text: s.text, terms: new Set(contentTokens(s.text)) })));
  if (sentences.length <= 1) return undefined;
  const claimTerms = termsOf(claim);
  const need = Math.max(Math.min(CARRYING_MIN_TERMS, claimTerms.size), CARRYING_SHARE * claimTerms.size);
  const carrying: CarryingSentence[] = [];
  for (const s of sentences) {
    const held = new Set<string>();
    for (const t of claimTerms) if (s.terms.has(t)) held.add(t);
    if (held.size >= need) carrying.push({ text: s.text, profile: readWarrant(s.text).profile, held });
  }
  if (carrying.length > 0) return carrying;
  // No sentence reaches the share (a long claim, each sentence holding a little of it): the sentences holding the most carry it.
  let most = 0;
  const held = sentences.map((s) => {
    const h = new Set<string>();
    for (const t of claimTerms) if (s.terms.has(t)) h.add(t);
    most = Math.max(most, h.size);
    return h;
  });
  if (most === 0) return undefined;
  return sentences.flatMap((s, i) => (held[i]!.size === most ? [{ text: s.text, profile: readWarrant(s.text).profile, held: held[i]! }] : []));
}

/**
 * The evidence is weaker than the claim on one dimension when a carrying
 * sentence is weaker and says something about the claim that no carrying
 * sentence of full force also says: a hedged sentence whose claim words an
 * unhedged one already holds repeats the point, it does not weaken it
 * ("The law applies to public and private unions. … a law that might not have
 * been conceivable …").
 */
function weakerWhereNeeded(carrying: readonly CarryingSentence[], weaker: (p: WarrantProfile) => boolean, concerns: (s: CarryingSentence, t: string) => boolean = () => true): boolean {
  const strongHeld = new Set<string>();
  let anyWeak = false;
  for (const s of carrying) {
    if (weaker(s.profile)) anyWeak = true;
    else for (const t of s.held) strongHeld.add(t);
  }
  if (!anyWeak) return false;
  return carrying.some((s) => weaker(s.profile) && [...s.held].some((t) => !strongHeld.has(t) && concerns(s, t)));
}

/**
 * Which claim words a narrower evidence sentence narrows (decision 151): the
 * words the claim's own scope word governs ("never been identified": a
 * sentence about "the remains of a man" without "never" narrows nothing the
 * claim says of all time), and the words the sentence's own scope word
 * governs ("at several community clinics" narrows "clinics", not "UC Davis
 * medical students"). A claim whose scope word governs no content word keeps
 * every word in play.
 */
function scopeConcerns(claim: WarrantReading): (s: CarryingSentence, t: string) => boolean {
  const claimGoverned = scopeGoverned(claim.text, claim.profile.scope);
  const everything = claim.profile.scope !== 'unspecified' && claimGoverned.size === 0;
  const pointedAt = demonstrativeReferents(claim.text);
  return (s, t) => everything || claimGoverned.has(t) || (!pointedAt.has(t) && scopeGoverned(s.text, s.profile.scope).has(t));
}

/** "these", "those", "this" before the word they point at (determiners only: "that" is more often a conjunction). */
const DEMONSTRATIVE = /\b(?:these|those|this)\s+/gi;

/**
 * The content words a claim points at with a demonstrative ("These clinics
 * provide care"): particular things the text already named, not a class.
 * An evidence sentence that says "several clinics" does not make the claim
 * broader on them, since the claim says nothing of all clinics; a scope
 * word of the claim's own ("all these clinics") still governs them.
 */
export function demonstrativeReferents(text: string): Set<string> {
  const out = new Set<string>();
  if (text.search(DEMONSTRATIVE) < 0) return out;
  const spans = tokenSpans(text);
  for (const m of text.matchAll(DEMONSTRATIVE)) {
    const end = m.index + m[0].length;
    const next = spans.find((sp) => sp.start >= end);
    if (next !== undefined && next.start === end) out.add(next.term);
  }
  return out;
}

/**
 * Causal when a causal cue stands outside every correlational phrase:
 * "are associated with lower temperatures" is correlational, "lower
 * temperatures" as a verb phrase ("trees lower temperatures") is causal.
 */
function relation(t: string): WarrantProfile['relation'] {
  const correlational = CORRELATIONAL.test(t);
  const rest = correlational ? t.replace(CORRELATIONAL_PHRASE, ' ') : t;
  if (CAUSAL.test(rest) || EFFECT_VERB.test(rest)) return 'causal';
  return correlational ? 'correlational' : 'descriptive';
}

/** Where a clause ends inside a sentence: commas, semicolons, colons, brackets and dashes. */
const CLAUSE_EDGE = /[,;:()]|\s[–—-]\s/;

/**
 * The content tokens a sentence's hedges ("may", "could", "probably"…) act
 * on: in each clause holding a hedge, the words after the first hedge cue to
 * the clause's end. "But that law might not have been conceivable if Walker
 * had not first succeeded in passing Act 10, a 2011 law that applied
 * exclusively to government employee unions" hedges "conceivable",
 * "Walker"…, not "employee unions" (another clause); "The painting is the
 * best of the copies and was probably painted around 1500" hedges "painted
 * around 1500", not "best" (what comes before the hedge is said outright).
 * A hedge with no word after it in its clause ("X is likely") acts on the
 * whole clause, one alone in its clause ("…, probably.") on the sentence. Undefined when the sentence has no
 * hedge word (it is weaker than a claim of certainty as a whole).
 */
export function hedgedTerms(text: string): Set<string> | undefined {
  const clauses = text.replace(MONTH_MAY, 'month').split(CLAUSE_EDGE);
  let out: Set<string> | undefined;
  for (const clause of clauses) {
    const lower = clause.toLowerCase();
    const cues = [POSSIBLE.exec(lower), PROBABLE.exec(lower)].filter((m) => m !== null);
    if (cues.length === 0) continue;
    const first = cues.reduce((a, b) => (b.index < a.index ? b : a));
    const after = contentTokens(clause.slice(first.index + first[0].length));
    const before = contentTokens(clause.slice(0, first.index));
    out ??= new Set();
    // A hedge standing alone in its clause (", probably.", ", perhaps, ") hedges the whole sentence.
    for (const t of after.length > 0 ? after : before.length > 0 ? before : contentTokens(text)) out.add(t);
  }
  return out;
}

/** A hedged sentence concerns the claim words of its hedged clauses only. */
function hedgeConcerns(s: CarryingSentence, t: string): boolean {
  if (s.profile.modality === 'asserted' || s.profile.modality === 'certain') return true;
  return hedgedTerms(s.text)?.has(t) ?? true;
}

/** "instead of …", "rather than …": what follows, up to the clause's end, is set aside, not asserted. */
const CONTRAST_CUE = /\b(?:instead of|rather than)\s/gi;

/**
 * The content tokens of a claim that stand in an "instead of …" or "rather
 * than …" phrase (to the clause's end): "Instead of attending the local
 * school, he enrolled at St Mary's" does not say he attended it, so evidence
 * that he "could have attended" it does not hedge anything the claim
 * asserts. Words the claim also uses outside such a phrase stay asserted.
 */
export function contrastedTerms(text: string): Set<string> {
  const out = new Set<string>();
  const ranges: Array<[number, number]> = [];
  for (const m of text.matchAll(CONTRAST_CUE)) {
    const from = m.index + m[0].length;
    const edge = text.slice(from).search(CLAUSE_EDGE);
    ranges.push([from, edge < 0 ? text.length : from + edge]);
  }
  if (ranges.length === 0) return out;
  const outside = new Set<string>();
  for (const sp of tokenSpans(text)) {
    if (ranges.some(([a, z]) => sp.start >= a && sp.end <= z)) out.add(sp.term);
    else outside.add(sp.term);
  }
  for (const t of outside) out.delete(t);
  return out;
}

/** The claim's distinct tokens the evidence holds. */
function heldTerms(claim: WarrantReading, evidence: WarrantReading): Set<string> {
  const ev = termsOf(evidence);
  return new Set([...termsOf(claim)].filter((t) => ev.has(t)));
}

export function warrantProfile(rawText: string): WarrantProfile {
  return readWarrant(rawText).profile;
}

/**
 * Per-call memo of `readWarrant`: the engine reads each claim and evidence
 * span once and hands the same reader to the display rules, which would
 * otherwise read the same texts again. Strings are immutable and the reading
 * a pure function of the text, so a memo cannot change a result; it lives
 * for one attribution or one verification, never longer.
 */
export class WarrantReader {
  readonly #readings = new Map<string, WarrantReading>();

  read(text: string): WarrantReading {
    let reading = this.#readings.get(text);
    if (reading === undefined) {
      reading = readWarrant(text);
      this.#readings.set(text, reading);
    }
    return reading;
  }
}

const DEFAULTS: WarrantProfile = { relation: 'descriptive', modality: 'asserted', scope: 'unspecified', temporal: 'atemporal', numeric: 'none' };

/** `dimension:value` for every dimension that is not at its neutral value, in a fixed order. */
export function forceFlags(profile: WarrantProfile): string[] {
  const out: string[] = [];
  for (const key of ['relation', 'modality', 'scope', 'temporal', 'numeric'] as const) {
    if (profile[key] !== DEFAULTS[key]) out.push(`${key}:${profile[key]}`);
  }
  return out;
}

const MODALITY_RANK = { possible: 0, probable: 1, asserted: 2, certain: 3 } as const;
const SCOPE_RANK = { particular: 0, general: 1, unspecified: 1, universal: 2 } as const;

/**
 * Ways in which the claim is stronger than its evidence. Empty when the
 * evidence warrants the claim. The flag names are part of the public
 * vocabulary (docs/attr-engine.md).
 */
export function warrantMismatchFlags(claimText: string, evidenceText: string, title?: string): string[] {
  return mismatchFlags(readWarrant(claimText), readWarrant(evidenceText), title === undefined ? undefined : readWarrant(title));
}

/**
 * The evidence's figures with the dates it gives relative to its own
 * dateline ("Wednesday evening" under "March 2, 2017" is March 1, 2017:
 * text/relative-dates.ts, decision 205). Read only when the claim has a
 * year or figure the evidence does not write.
 */
function withRelativeDates(claim: NumberMentions, evidence: WarrantReading): NumberMentions {
  const own = evidence.numbers;
  if (claim.years.every((y) => own.years.includes(y)) && claim.values.every((v) => own.values.includes(v))) return own;
  const dated = relativeDateFigures(evidence.text);
  if (dated.years.length === 0) return own;
  return { years: [...own.years, ...dated.years], values: [...own.values, ...dated.values] };
}

/**
 * `warrantMismatchFlags` from readings already made. `title`: the reading of
 * the cited source's title, shown with the evidence in the footer's source
 * row: a year or figure it gives is on display as much as one in the span
 * ("Health Status of Canadians 2016: Report …" dates the report). Only its
 * figures count; its force words do not change the evidence's force.
 */
export function mismatchFlags(claim: WarrantReading, evidence: WarrantReading, title?: WarrantReading): string[] {
  const c = claim.profile;
  const carrying = carryingSentences(claim, evidence);
  // Relation, time and figures are read from the carrying sentences together (the whole span when all carry).
  const e = carrying === undefined || carrying.length === evidence.sentences!.length ? evidence.profile : readWarrant(carrying.map((s) => s.text).join(' ')).profile;
  const weakerModality = (p: WarrantProfile) => MODALITY_RANK[c.modality] > MODALITY_RANK[p.modality];
  const narrowerScope = (p: WarrantProfile) => SCOPE_RANK[c.scope] > SCOPE_RANK[p.scope];
  const flags: string[] = [];
  if (c.relation === 'causal' && e.relation === 'correlational') flags.push('relation_causal_from_correlational');
  // A hedge weakens the clause it stands in (decision 151), for a one-sentence span too.
  const sentencesRead = carrying ?? [{ text: evidence.text, profile: evidence.profile, held: heldTerms(claim, evidence) }];
  const notAsserted = contrastedTerms(claim.text);
  const hedged = notAsserted.size === 0 ? hedgeConcerns : (s: CarryingSentence, t: string) => !notAsserted.has(t) && hedgeConcerns(s, t);
  if (weakerWhereNeeded(sentencesRead, weakerModality, hedged)) flags.push('modality_stronger_than_evidence');
  // Scope is judged per sentence even for a one-sentence span: what matters is which claim words a scope word governs.
  if (weakerWhereNeeded(sentencesRead, narrowerScope, scopeConcerns(claim))) flags.push('scope_broader_than_evidence');
  const cn = claim.numbers;
  const en = withRelativeDates(cn, evidence);
  const tn = title?.numbers;
  if (cn.years.some((y) => !en.years.includes(y) && !tn?.years.includes(y))) flags.push('temporal_year_not_in_evidence');
  if (c.temporal === 'present_relative' && e.temporal === 'dated') flags.push('temporal_present_from_dated_evidence');
  if (cn.values.some((v) => !en.values.includes(v) && !tn?.values.includes(v))) flags.push('numeric_value_not_in_evidence');
  else if (c.numeric === 'exact' && (e.numeric === 'approximate' || e.numeric === 'bounded')) flags.push('numeric_precision_stronger_than_evidence');
  return flags;
}
