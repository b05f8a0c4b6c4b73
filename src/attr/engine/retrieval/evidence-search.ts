/**
 * Finds the evidence for one claim: candidate chunks from BM25, then the
 * best evidence window (one sentence, or two adjacent ones when that adds
 * real support) in each chunk. Support is IDF-weighted recall of the claim's
 * tokens in the window, so rare words and numbers count most. Windows that
 * plainly contradict the claim (opposite polarity, or different numbers
 * about the same thing) are never chosen as support; they are reported as
 * source disagreement instead.
 */
import { stripCitationNoise } from '../text/citation-markers.ts';
import { stripLinks } from '../text/links.ts';
import { NEGATION } from '../warrant/lexicon.ts';
import { numberMentions } from '../warrant/numbers.ts';
import type { CorpusRecord } from '../../corpus/corpus-record.ts';
import type { CorpusIndex, IndexedChunk, IndexedTerm } from './corpus-index.ts';

export interface EvidenceWindow {
  chunk: IndexedChunk;
  start: number;
  end: number;
  text: string;
  support: number;
  textMatch: number;
}

export type ConflictKind = 'negation' | 'numeric';

export interface ClaimEvidence {
  primary: EvidenceWindow | undefined;
  /** Per source id: the best non-conflicting window (agreement candidates). */
  bestBySource: Map<string, EvidenceWindow>;
  /** Per source id: how it contradicts the claim, and in which chunk. */
  conflicts: Map<string, { kind: ConflictKind; chunkId: string }>;
  /** The corpus records of the contradicting sources, by source id. */
  conflictSources: Map<string, CorpusRecord>;
}

/** Relatedness a sentence needs (on non-numeric tokens) before it can contradict a claim. */
const CONFLICT_RELATEDNESS = 0.7;
/** A second sentence joins the window only if it adds at least this much support. */
const PAIR_GAIN = 0.1;
const MAX_WINDOW_CHARS = 600;

function polarity(text: string): number {
  return (text.toLowerCase().match(NEGATION)?.length ?? 0) % 2;
}

export function round4(x: number): number {
  return Math.round(x * 10000) / 10000;
}

export class EvidenceSearch {
  readonly #index: CorpusIndex;
  readonly #depth: number;
  /** Term id → position of the term in the claim being searched, -1 elsewhere (reset after each search). */
  readonly #slotOfTerm: Int32Array;

  constructor(index: CorpusIndex, depth: number) {
    this.#index = index;
    this.#depth = depth;
    this.#slotOfTerm = new Int32Array(index.termCount).fill(-1);
  }

  search(claimText: string, claimTokens: readonly string[]): ClaimEvidence {
    const unique = [...new Set(claimTokens)];
    const terms = unique.map((t) => this.#index.lookup(t));
    try {
      terms.forEach((t, slot) => {
        if (t.id >= 0) this.#slotOfTerm[t.id] = slot;
      });
      return this.#search(claimText, unique, terms);
    } finally {
      for (const t of terms) if (t.id >= 0) this.#slotOfTerm[t.id] = -1;
    }
  }

  /**
   * Scores every sentence of the candidate chunks by which claim terms it
   * holds: a bit mask per sentence, bit `slot` set when the sentence has the
   * claim's term number `slot` (`words` 32-bit words per sentence). Weighted
   * sums visit the set bits in ascending order, that is the claim's terms in
   * claim order, so every score is the same floating-point sum as a plain
   * loop over the claim's terms.
   */
  #search(claimText: string, unique: readonly string[], indexed: readonly IndexedTerm[]): ClaimEvidence {
    const n = unique.length;
    // Weights and their sums, added up in claim order.
    const uniqueWeights = indexed.map((t) => t.idf);
    const totalWeight = uniqueWeights.reduce((s, w) => s + w, 0);
    const isWord = unique.map((t) => !/^\d/.test(t));
    const wordTokenCount = isWord.filter(Boolean).length;
    const wordWeight = uniqueWeights.filter((_, i) => isWord[i]).reduce((s, w) => s + w, 0);
    const claimPolarity = polarity(claimText);
    const claimNumbers = numberMentions(stripLinks(stripCitationNoise(claimText))).values;

    let primary: EvidenceWindow | undefined;
    const bestBySource = new Map<string, EvidenceWindow>();
    const conflicts = new Map<string, { kind: ConflictKind; chunkId: string }>();
    const conflictSources = new Map<string, CorpusRecord>();
    if (n === 0) return { primary, bestBySource, conflicts, conflictSources };

    const slotOfTerm = this.#slotOfTerm;
    const terms = this.#index.sentenceTerms;
    const words = (n + 31) >>> 5;
    const wordMask = new Uint32Array(words);
    isWord.forEach((word, i) => {
      if (word) wordMask[i >>> 5]! |= 1 << (i & 31);
    });
    let masks = new Uint32Array(0);
    /** IDF-weighted recall of the claim's terms (or only its word terms) in sentence `a` (or `a` ∪ `b`). */
    const recall = (a: number, b: number, wordsOnly: boolean): number => {
      const total = wordsOnly ? wordWeight : totalWeight;
      if (total === 0) return 0;
      let hit = 0;
      for (let w = 0; w < words; w++) {
        let m = masks[a * words + w]! | (b >= 0 ? masks[b * words + w]! : 0);
        if (wordsOnly) m &= wordMask[w]!;
        while (m !== 0) {
          const low = m & -m;
          hit += uniqueWeights[(w << 5) + 31 - Math.clz32(low)]!;
          m ^= low;
        }
      }
      return hit / total;
    };
    /** Token Jaccard of the claim with sentence `a` (or `a` ∪ `b`, whose own union has `windowSize` terms). */
    const jaccard = (a: number, b: number, windowSize: number): number => {
      let inter = 0;
      for (let w = 0; w < words; w++) {
        for (let m = masks[a * words + w]! | (b >= 0 ? masks[b * words + w]! : 0); m !== 0; m &= m - 1) inter++;
      }
      const union = n + windowSize - inter;
      return union === 0 ? 0 : inter / union;
    };

    const { sentenceTermStart: termStart, sentenceStart: starts, sentenceEnd: ends } = this.#index;
    for (const chunk of this.#index.candidatesFor(indexed, this.#depth)) {
      const count = chunk.sentences.length;
      const first = chunk.firstSentence;
      if (masks.length < count * words) masks = new Uint32Array(count * words);
      else masks.fill(0, 0, count * words);
      for (let j = 0; j < count; j++) {
        for (let k = termStart[first + j]!, end = termStart[first + j + 1]!; k < end; k++) {
          const slot = slotOfTerm[terms[k]!]!;
          if (slot >= 0) masks[j * words + (slot >>> 5)]! |= 1 << (slot & 31);
        }
      }
      // A sentence contradicts the claim when it is about the same thing (shares most of its words)
      // with the opposite polarity, or with different figures.
      const sentenceConflicts: Array<ConflictKind | undefined> = [];
      for (let j = 0; j < count; j++) {
        let conflict: ConflictKind | undefined;
        if (wordTokenCount >= 2 && recall(j, -1, true) >= CONFLICT_RELATEDNESS) {
          const text = chunk.sentences[j]!.text;
          if (polarity(text) !== claimPolarity) conflict = 'negation';
          else {
            const evNumbers = numberMentions(text).values;
            if (claimNumbers.length > 0 && evNumbers.length > 0 && !claimNumbers.some((x) => evNumbers.includes(x))) conflict = 'numeric';
          }
        }
        sentenceConflicts.push(conflict);
      }
      // Choose the window by support first; text match is computed once, for the chosen window.
      let bestStart = -1;
      let bestPair = false;
      let bestSupport = -1;
      let bestLength = Infinity;
      for (let i = 0; i < count; i++) {
        const conflict = sentenceConflicts[i];
        if (conflict) {
          if (!conflicts.has(chunk.source.source_id)) {
            conflicts.set(chunk.source.source_id, { kind: conflict, chunkId: chunk.chunkId });
            conflictSources.set(chunk.source.source_id, chunk.source);
          }
          continue;
        }
        const s = first + i;
        let support = recall(i, -1, false);
        let pair = false;
        let length = ends[s]! - starts[s]!;
        if (i + 1 < count && !sentenceConflicts[i + 1] && ends[s + 1]! - starts[s]! <= MAX_WINDOW_CHARS) {
          const merged = recall(i, i + 1, false);
          if (merged >= support + PAIR_GAIN) {
            support = merged;
            pair = true;
            length = ends[s + 1]! - starts[s]!;
          }
        }
        // Higher support wins; on equal support the shorter window does (the tighter evidence span).
        if (support > bestSupport || (support === bestSupport && length < bestLength)) {
          bestStart = i;
          bestPair = pair;
          bestSupport = support;
          bestLength = length;
        }
      }
      if (bestStart < 0) continue;
      const a = first + bestStart;
      const z = bestPair ? a + 1 : a;
      const best: EvidenceWindow = {
        chunk,
        start: starts[a]!,
        end: ends[z]!,
        text: chunk.text.slice(starts[a]!, ends[z]!),
        support: round4(bestSupport),
        textMatch: round4(
          bestPair ? jaccard(bestStart, bestStart + 1, unionSize(terms, termStart, a, z)) : jaccard(bestStart, -1, termStart[a + 1]! - termStart[a]!),
        ),
      };
      const prev = bestBySource.get(chunk.source.source_id);
      if (!prev || best.support > prev.support) bestBySource.set(chunk.source.source_id, best);
      if (!primary || best.support > primary.support) primary = best;
    }
    return { primary, bestBySource, conflicts, conflictSources };
  }
}

/** Number of distinct terms in sentences `a` and `b` together (each one's ids are ascending). */
function unionSize(terms: Int32Array, termStart: Int32Array, a: number, b: number): number {
  let i = termStart[a]!;
  let j = termStart[b]!;
  const iEnd = termStart[a + 1]!;
  const jEnd = termStart[b + 1]!;
  let common = 0;
  while (i < iEnd && j < jEnd) {
    if (terms[i]! === terms[j]!) {
      common++;
      i++;
      j++;
    } else if (terms[i]! < terms[j]!) i++;
    else j++;
  }
  return iEnd - termStart[a]! + (jEnd - termStart[b]!) - common;
}
