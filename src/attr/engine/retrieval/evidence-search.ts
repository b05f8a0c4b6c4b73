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

  constructor(index: CorpusIndex, depth: number) {
    this.#index = index;
    this.#depth = depth;
  }

  search(claimText: string, claimTokens: readonly string[]): ClaimEvidence {
    const unique = [...new Set(claimTokens)];
    const weights = new Map(unique.map((t) => [t, this.#index.idf(t)]));
    const totalWeight = unique.reduce((s, t) => s + weights.get(t)!, 0);
    const wordTokens = unique.filter((t) => !/^\d/.test(t));
    const wordWeight = wordTokens.reduce((s, t) => s + weights.get(t)!, 0);
    const claimPolarity = polarity(claimText);
    const claimNumbers = numberMentions(stripLinks(stripCitationNoise(claimText))).values;

    const uniqueWeights = unique.map((t) => weights.get(t)!);
    const wordWeights = wordTokens.map((t) => weights.get(t)!);
    const recall = (tokens: ReadonlySet<string>, terms: readonly string[], total: number): number => {
      if (total === 0) return 0;
      const w = terms === unique ? uniqueWeights : wordWeights;
      let hit = 0;
      for (let i = 0; i < terms.length; i++) if (tokens.has(terms[i]!)) hit += w[i]!;
      return hit / total;
    };
    const jaccard = (tokens: ReadonlySet<string>): number => {
      let inter = 0;
      for (const t of unique) if (tokens.has(t)) inter++;
      const union = unique.length + tokens.size - inter;
      return union === 0 ? 0 : inter / union;
    };
    const conflictOf = (text: string, tokens: ReadonlySet<string>): ConflictKind | undefined => {
      if (wordTokens.length < 2 || recall(tokens, wordTokens, wordWeight) < CONFLICT_RELATEDNESS) return undefined;
      if (polarity(text) !== claimPolarity) return 'negation';
      const evNumbers = numberMentions(text).values;
      if (claimNumbers.length > 0 && evNumbers.length > 0 && !claimNumbers.some((n) => evNumbers.includes(n))) return 'numeric';
      return undefined;
    };

    let primary: EvidenceWindow | undefined;
    const bestBySource = new Map<string, EvidenceWindow>();
    const conflicts = new Map<string, { kind: ConflictKind; chunkId: string }>();
    const conflictSources = new Map<string, CorpusRecord>();
    if (unique.length === 0) return { primary, bestBySource, conflicts, conflictSources };

    const pairRecall = (a: ReadonlySet<string>, b: ReadonlySet<string>): number => {
      let hit = 0;
      for (let i = 0; i < unique.length; i++) if (a.has(unique[i]!) || b.has(unique[i]!)) hit += uniqueWeights[i]!;
      return hit / totalWeight;
    };
    const pairJaccard = (a: ReadonlySet<string>, b: ReadonlySet<string>): number => {
      const merged = new Set(a);
      for (const t of b) merged.add(t);
      return jaccard(merged);
    };

    for (const chunk of this.#index.candidates(unique, this.#depth)) {
      const sentences = chunk.sentences;
      const sentenceConflicts = sentences.map((s) => conflictOf(s.text, s.tokens));
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
        let support = recall(s.tokens, unique, totalWeight);
        let pair = false;
        let length = s.end - s.start;
        const next = sentences[i + 1];
        if (next && !sentenceConflicts[i + 1] && next.end - s.start <= MAX_WINDOW_CHARS) {
          const merged = pairRecall(s.tokens, next.tokens);
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
        textMatch: round4(bestPair ? pairJaccard(first.tokens, last.tokens) : jaccard(first.tokens)),
      };
      const prev = bestBySource.get(chunk.source.source_id);
      if (!prev || best.support > prev.support) bestBySource.set(chunk.source.source_id, best);
      if (!primary || best.support > primary.support) primary = best;
    }
    return { primary, bestBySource, conflicts, conflictSources };
  }
}
