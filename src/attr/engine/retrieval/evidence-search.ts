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
import type { CorpusIndex, IndexedChunk } from './corpus-index.ts';

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
    const slots = unique.map((t) => this.#index.termId(t));
    try {
      slots.forEach((id, slot) => {
        if (id !== undefined) this.#slotOfTerm[id] = slot;
      });
      return this.#search(claimText, unique);
    } finally {
      for (const id of slots) if (id !== undefined) this.#slotOfTerm[id] = -1;
    }
  }

  /**
   * Scores every sentence of the candidate chunks by which claim terms it
   * holds: `hits[sentence * n + slot]` is 1 when the sentence has claim term
   * `slot`. Weighted sums always run over the claim's terms in claim order,
   * so every score is the same floating-point sum whichever way the hits
   * were found.
   */
  #search(claimText: string, unique: readonly string[]): ClaimEvidence {
    const n = unique.length;
    const weights = new Map(unique.map((t) => [t, this.#index.idf(t)]));
    const totalWeight = unique.reduce((s, t) => s + weights.get(t)!, 0);
    const isWord = unique.map((t) => !/^\d/.test(t));
    const wordTokenCount = isWord.filter(Boolean).length;
    const wordWeight = unique.filter((_, i) => isWord[i]).reduce((s, t) => s + weights.get(t)!, 0);
    const claimPolarity = polarity(claimText);
    const claimNumbers = numberMentions(stripLinks(stripCitationNoise(claimText))).values;
    const uniqueWeights = unique.map((t) => weights.get(t)!);

    let primary: EvidenceWindow | undefined;
    const bestBySource = new Map<string, EvidenceWindow>();
    const conflicts = new Map<string, { kind: ConflictKind; chunkId: string }>();
    const conflictSources = new Map<string, CorpusRecord>();
    if (n === 0) return { primary, bestBySource, conflicts, conflictSources };

    const slotOfTerm = this.#slotOfTerm;
    let hits = new Uint8Array(0);
    /** IDF-weighted recall of the claim's terms (or only its word terms) in sentence `a` (or `a` ∪ `b`). */
    const recall = (a: number, b: number, wordsOnly: boolean): number => {
      const total = wordsOnly ? wordWeight : totalWeight;
      if (total === 0) return 0;
      const ao = a * n;
      const bo = b * n;
      let hit = 0;
      for (let i = 0; i < n; i++) {
        if (wordsOnly && !isWord[i]) continue;
        if (hits[ao + i] === 1 || (b >= 0 && hits[bo + i] === 1)) hit += uniqueWeights[i]!;
      }
      return hit / total;
    };
    /** Token Jaccard of the claim with sentence `a` (or `a` ∪ `b`, whose own union has `windowSize` terms). */
    const jaccard = (a: number, b: number, windowSize: number): number => {
      let inter = 0;
      for (let i = 0; i < n; i++) if (hits[a * n + i] === 1 || (b >= 0 && hits[b * n + i] === 1)) inter++;
      const union = n + windowSize - inter;
      return union === 0 ? 0 : inter / union;
    };

    for (const chunk of this.#index.candidates(unique, this.#depth)) {
      const sentences = chunk.sentences;
      if (hits.length < sentences.length * n) hits = new Uint8Array(sentences.length * n);
      else hits.fill(0, 0, sentences.length * n);
      for (let j = 0; j < sentences.length; j++) {
        const ids = sentences[j]!.termIds;
        for (let k = 0; k < ids.length; k++) {
          const slot = slotOfTerm[ids[k]!]!;
          if (slot >= 0) hits[j * n + slot] = 1;
        }
      }
      // A sentence contradicts the claim when it is about the same thing (shares most of its words)
      // with the opposite polarity, or with different figures.
      const sentenceConflicts = sentences.map((s, j): ConflictKind | undefined => {
        if (wordTokenCount < 2 || recall(j, -1, true) < CONFLICT_RELATEDNESS) return undefined;
        if (polarity(s.text) !== claimPolarity) return 'negation';
        const evNumbers = numberMentions(s.text).values;
        if (claimNumbers.length > 0 && evNumbers.length > 0 && !claimNumbers.some((x) => evNumbers.includes(x))) return 'numeric';
        return undefined;
      });
      // Choose the window by support first; text match is computed once, for the chosen window.
      let bestStart = -1;
      let bestPair = false;
      let bestSupport = -1;
      let bestLength = Infinity;
      for (let i = 0; i < sentences.length; i++) {
        const s = sentences[i]!;
        const conflict = sentenceConflicts[i];
        if (conflict) {
          if (!conflicts.has(chunk.source.source_id)) {
            conflicts.set(chunk.source.source_id, { kind: conflict, chunkId: chunk.chunkId });
            conflictSources.set(chunk.source.source_id, chunk.source);
          }
          continue;
        }
        let support = recall(i, -1, false);
        let pair = false;
        let length = s.end - s.start;
        const next = sentences[i + 1];
        if (next && !sentenceConflicts[i + 1] && next.end - s.start <= MAX_WINDOW_CHARS) {
          const merged = recall(i, i + 1, false);
          if (merged >= support + PAIR_GAIN) {
            support = merged;
            pair = true;
            length = next.end - s.start;
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
      const first = sentences[bestStart]!;
      const last = bestPair ? sentences[bestStart + 1]! : first;
      const best: EvidenceWindow = {
        chunk,
        start: first.start,
        end: last.end,
        text: chunk.text.slice(first.start, last.end),
        support: round4(bestSupport),
        textMatch: round4(
          bestPair ? jaccard(bestStart, bestStart + 1, unionSize(first.termIds, last.termIds)) : jaccard(bestStart, -1, first.termIds.length),
        ),
      };
      const prev = bestBySource.get(chunk.source.source_id);
      if (!prev || best.support > prev.support) bestBySource.set(chunk.source.source_id, best);
      if (!primary || best.support > primary.support) primary = best;
    }
    return { primary, bestBySource, conflicts, conflictSources };
  }
}

/** Size of the union of two ascending id lists. */
function unionSize(a: Int32Array, b: Int32Array): number {
  let i = 0;
  let j = 0;
  let common = 0;
  while (i < a.length && j < b.length) {
    if (a[i]! === b[j]!) {
      common++;
      i++;
      j++;
    } else if (a[i]! < b[j]!) i++;
    else j++;
  }
  return a.length + b.length - common;
}
