/**
 * Support of one claim by one evidence window, decided per fragment and
 * offline: IDF-weighted recall of the claim's tokens in the window, then
 * checks that cap the score below the supported threshold when the window
 * does not say what the claim says even though it holds its words:
 *
 * - `fragment_unsupported`: a clause of the claim is not itself covered
 *   (a rider such as "…, and they also produce gold");
 * - `entity_missing`: a name the claim uses is in neither the window nor
 *   the source title (an entity swap: "Eastern bumblebees …");
 * - `number_missing` / `quantity_mismatch`: a figure or year is absent, or
 *   present but counting something else ("5 years" vs "5 films");
 * - `negation_mismatch`: the sentence that covers a clause has the other
 *   polarity;
 * - `role_order`: the clause's words stand in the evidence in a clearly
 *   different order (arguments swapped: "Their hive forages … of western
 *   honeybees"), unless exactly one side is passive, where order flips.
 *
 * Every constant is calibrated on the WiCE dev split; docs/attr-grounding.md
 * gives each one with the figures behind it.
 */
import type { TokenSpan } from '../text/tokenizer.ts';
import type { ClaimReading } from './claim-reading.ts';

/** A clause whose own weighted recall is below this is not supported. */
export const FRAGMENT_MIN_RECALL = 0.5;
/** Share of order-inverted pairs among a clause's matched words above which the arguments count as swapped. */
export const ROLE_CROSSING_MAX = 0.5;
/** A clause needs this many matched words before its order is judged… */
export const ROLE_MIN_MATCHED = 3;
/** …and one sentence must hold this share of its words (the same words, rearranged: the swap attack). */
export const ROLE_MIN_COVERAGE = 0.8;
/** The sentence covering a clause must hold this share of its words before its polarity is compared. */
export const NEGATION_MIN_COVERAGE = 0.6;
/** Letters a name and its variant must share (see hasVariant). */
export const ENTITY_PREFIX = 5;
/** Tokens after a number within which its unit must follow in the evidence. */
export const QUANTITY_REACH = 3;
/** Score ceiling for a window that fails a hard check: below the partial floor's top, never `supported`. */
export const FAILED_CHECK_CAP = 0.5;
/** Score ceiling for a window that leaves a clause unsupported. */
export const FRAGMENT_CAP = 0.6;

export interface WindowSentence {
  spans: readonly TokenSpan[];
  negated: boolean;
  passive: boolean;
}

export interface WindowReading {
  terms: ReadonlySet<string>;
  sentences: readonly WindowSentence[];
  titleTerms: ReadonlySet<string>;
}

export interface SupportVerdict {
  /** Weighted recall of the claim's tokens in the window. */
  recall: number;
  /** The support score: `recall`, capped when a check fails. */
  score: number;
  flags: string[];
}

export function judgeSupport(claim: ClaimReading, weight: (term: string) => number, window: WindowReading): SupportVerdict {
  const flags: string[] = [];
  const has = window.terms;
  let total = 0;
  let hit = 0;
  for (const t of claim.terms) {
    const w = weight(t);
    total += w;
    if (has.has(t)) hit += w;
  }
  const recall = total === 0 ? 0 : hit / total;

  for (const e of claim.entities) {
    if (!has.has(e) && !window.titleTerms.has(e) && !hasVariant(has, e) && !hasVariant(window.titleTerms, e)) {
      flags.push('entity_missing');
      break;
    }
  }
  for (const s of claim.numbers) {
    if (!has.has(s.term) && !s.alternatives.some((a) => has.has(a))) {
      flags.push('number_missing');
      break;
    }
  }
  if (!flags.includes('number_missing')) {
    for (const q of claim.quantities) {
      if (q.unit !== undefined && has.has(q.unit) && !window.sentences.some((s) => countsWith(s.spans, q.value, q.unit!))) {
        flags.push('quantity_mismatch');
        break;
      }
    }
  }

  let fragmentFailed = false;
  for (const f of claim.fragments) {
    let fTotal = 0;
    let fHit = 0;
    for (const t of f.terms) {
      const w = weight(t);
      fTotal += w;
      if (has.has(t)) fHit += w;
    }
    if (fTotal > 0 && fHit / fTotal < FRAGMENT_MIN_RECALL) fragmentFailed = true;
    const best = bestSentence(window.sentences, f.terms);
    if (best === undefined) continue;
    // Polarity and order are only compared with a sentence that is plainly about the clause.
    const about = best.matched / f.terms.length;
    if (about >= NEGATION_MIN_COVERAGE && best.sentence.negated !== f.negated && !flags.includes('negation_mismatch')) flags.push('negation_mismatch');
    if (about >= ROLE_MIN_COVERAGE && claim.passive === best.sentence.passive && swapped(f.terms, best.sentence.spans) && !flags.includes('role_order')) {
      flags.push('role_order');
    }
  }
  if (fragmentFailed) flags.push('fragment_unsupported');

  let score = recall;
  if (flags.some((f) => f !== 'fragment_unsupported')) score = Math.min(score, FAILED_CHECK_CAP);
  else if (fragmentFailed) score = Math.min(score, FRAGMENT_CAP);
  return { recall, score, flags };
}

/** True when `value` is followed by `unit` within QUANTITY_REACH tokens somewhere in the sentence. */
function countsWith(spans: readonly TokenSpan[], value: string, unit: string): boolean {
  for (let i = 0; i < spans.length; i++) {
    if (spans[i]!.term !== value) continue;
    for (let k = i + 1; k <= i + QUANTITY_REACH && k < spans.length; k++) if (spans[k]!.term === unit) return true;
  }
  return false;
}

/** The window sentence holding the most of the clause's distinct words (first on ties), with that count. */
function bestSentence(sentences: readonly WindowSentence[], terms: readonly string[]): { sentence: WindowSentence; matched: number } | undefined {
  let best: WindowSentence | undefined;
  let bestCount = 0;
  for (const s of sentences) {
    let n = 0;
    for (const t of terms) if (s.spans.some((x) => x.term === t)) n++;
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
  for (const t of terms) {
    if (t.length < ENTITY_PREFIX - 1 || t.charCodeAt(0) !== entity.charCodeAt(0)) continue;
    const shorter = Math.min(t.length, entity.length);
    let common = 0;
    while (common < shorter && t.charCodeAt(common) === entity.charCodeAt(common)) common++;
    if (common >= ENTITY_PREFIX && common >= shorter - 1) return true;
  }
  return false;
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
