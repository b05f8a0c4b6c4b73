/**
 * Finds the evidence for one claim: candidate chunks from BM25, then the
 * best evidence window (one sentence, or two adjacent ones when that adds
 * real support) in each chunk. Support is IDF-weighted recall of the claim's
 * tokens in the window, so rare words and numbers count most. Windows that
 * plainly contradict the claim (opposite polarity, or different numbers
 * about the same thing) are never chosen as support; they are reported as
 * source disagreement instead.
 */
import { PARTIAL_SUPPORT_FLOOR } from '../support-labels.ts';
import type { ClaimReading } from '../support/claim-reading.ts';
import { calibratedScore, judgeSupport, type WindowSentence } from '../support/support-judge.ts';
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
  /** Weighted recall of the claim's tokens in the window, before the support checks. */
  recall: number;
  /** Support checks the window failed (support-judge.ts), empty when it passed them or was not judged. */
  checks: string[];
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
/** Each sentence beyond the first must add at least this much recall to join the window. */
export const EXTRA_SENTENCE_GAIN = 0.02;
/** A window is built from at most this many chosen sentences… */
export const MAX_WINDOW_SENTENCES = 6;
/** …and spans at most this many characters from the first to the last. */
export const MAX_WINDOW_CHARS = 2000;

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
  /**
   * Term id → 1 + index into the current search's `joined` slot pairs, 0 elsewhere: a word the claim writes as
   * two ("radio carbon") that a sentence writes as one ("radiocarbon") sets both claim terms' bits.
   */
  readonly #joinedOfTerm: Int32Array;
  /** Per term id, the stamp of the last union count that saw it. */
  readonly #seen: Int32Array;
  #stamp = 0;
  readonly #ordinaryWord: (term: string) => boolean;

  constructor(index: CorpusIndex, depth: number) {
    this.#index = index;
    this.#depth = depth;
    this.#slotOfTerm = new Int32Array(index.termCount).fill(-1);
    this.#joinedOfTerm = new Int32Array(index.termCount);
    this.#seen = new Int32Array(index.termCount);
    this.#ordinaryWord = (term) => index.ordinaryWord(term);
  }

  search(claim: ClaimReading): ClaimEvidence {
    const unique = claim.terms;
    const terms = unique.map((t) => this.#index.lookup(t));
    // One-word forms of the claim's two-word ones that the corpus writes, with the slots of the two claim terms.
    const joined: Array<{ term: IndexedTerm; slots: [number, number] }> = [];
    for (const j of claim.joined) {
      const term = this.#index.lookup(j.whole);
      if (term.id >= 0) joined.push({ term, slots: [unique.indexOf(j.parts[0]), unique.indexOf(j.parts[1])] });
    }
    try {
      terms.forEach((t, slot) => {
        if (t.id >= 0) this.#slotOfTerm[t.id] = slot;
      });
      joined.forEach((j, k) => {
        this.#joinedOfTerm[j.term.id] = k + 1;
      });
      return this.#search(claim, unique, terms, joined);
    } finally {
      for (const t of terms) if (t.id >= 0) this.#slotOfTerm[t.id] = -1;
      for (const j of joined) this.#joinedOfTerm[j.term.id] = 0;
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
  #search(claim: ClaimReading, unique: readonly string[], indexed: readonly IndexedTerm[], joined: ReadonlyArray<{ term: IndexedTerm; slots: [number, number] }>): ClaimEvidence {
    const claimText = claim.text;
    const n = unique.length;
    // Weights and their sums, added up in claim order.
    const uniqueWeights = indexed.map((t) => t.idf);
    const totalWeight = uniqueWeights.reduce((s, w) => s + w, 0);
    const isWord = unique.map((t) => !/^\d/.test(t));
    const wordTokenCount = isWord.filter(Boolean).length;
    const wordWeight = uniqueWeights.filter((_, i) => isWord[i]).reduce((s, w) => s + w, 0);
    const claimPolarity = polarity(claimText);
    const claimNumbers = numberMentions(claimText).values;

    let primary: EvidenceWindow | undefined;
    const bestBySource = new Map<string, EvidenceWindow>();
    const conflicts = new Map<string, { kind: ConflictKind; chunkId: string }>();
    const conflictSources = new Map<string, CorpusRecord>();
    if (n === 0) return { primary, bestBySource, conflicts, conflictSources };

    const slotOfTerm = this.#slotOfTerm;
    const joinedOfTerm = this.#joinedOfTerm;
    const terms = this.#index.sentenceTerms;
    const words = (n + 31) >>> 5;
    const wordMask = new Uint32Array(words);
    isWord.forEach((word, i) => {
      if (word) wordMask[i >>> 5]! |= 1 << (i & 31);
    });
    let masks = new Uint32Array(0);
    const union = new Uint32Array(words);
    const scratch = new Uint32Array(words);
    /** IDF-weighted recall of the claim's terms in a mask. */
    const recallOf = (m: Uint32Array): number => {
      if (totalWeight === 0) return 0;
      let hit = 0;
      for (let w = 0; w < words; w++) {
        for (let bits = m[w]!; bits !== 0; ) {
          const low = bits & -bits;
          hit += uniqueWeights[(w << 5) + 31 - Math.clz32(low)]!;
          bits ^= low;
        }
      }
      return hit / totalWeight;
    };
    /** IDF-weighted recall of the claim's terms (or only its word terms) in sentence `a` (or `a` ∪ `b`; b = -2: the `union` mask). */
    const recall = (a: number, b: number, wordsOnly: boolean): number => {
      const total = wordsOnly ? wordWeight : totalWeight;
      if (total === 0) return 0;
      let hit = 0;
      for (let w = 0; w < words; w++) {
        let m = b === -2 ? union[w]! : masks[a * words + w]! | (b >= 0 ? masks[b * words + w]! : 0);
        if (wordsOnly) m &= wordMask[w]!;
        while (m !== 0) {
          const low = m & -m;
          hit += uniqueWeights[(w << 5) + 31 - Math.clz32(low)]!;
          m ^= low;
        }
      }
      return hit / total;
    };
    /** Token Jaccard of the claim with sentences `a..z` of the chunk (whose own union has `windowSize` terms). */
    const jaccard = (a: number, z: number, windowSize: number): number => {
      let inter = 0;
      for (let w = 0; w < words; w++) {
        let bits = 0;
        for (let j = a; j <= z; j++) bits |= masks[j * words + w]!;
        for (let m = bits; m !== 0; m &= m - 1) inter++;
      }
      const all = n + windowSize - inter;
      return all === 0 ? 0 : inter / all;
    };
    const sentenceReading = (chunk: IndexedChunk, j: number): WindowSentence => this.#index.sentenceReading(chunk, j);
    const weight = (term: string) => this.#index.lookup(term).idf;

    const { sentenceTermStart: termStart, sentenceStart: starts, sentenceEnd: ends } = this.#index;
    const query = joined.length === 0 ? indexed : [...indexed, ...joined.map((j) => j.term)];
    for (const chunk of this.#index.candidatesFor(query, this.#depth)) {
      const count = chunk.sentences.length;
      const first = chunk.firstSentence;
      if (masks.length < count * words) masks = new Uint32Array(count * words);
      else masks.fill(0, 0, count * words);
      for (let j = 0; j < count; j++) {
        for (let k = termStart[first + j]!, end = termStart[first + j + 1]!; k < end; k++) {
          const slot = slotOfTerm[terms[k]!]!;
          if (slot >= 0) masks[j * words + (slot >>> 5)]! |= 1 << (slot & 31);
          const one = joinedOfTerm[terms[k]!]!;
          if (one > 0) for (const p of joined[one - 1]!.slots) masks[j * words + (p >>> 5)]! |= 1 << (p & 31);
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
      // Choose the window: start from the sentence with the highest recall, then add (greedily) the sentence
      // of the same chunk that adds the most, while it adds at least EXTRA_SENTENCE_GAIN, the window keeps
      // within MAX_WINDOW_CHARS and MAX_WINDOW_SENTENCES chosen sentences, and holds no conflicting sentence.
      // The window is the span from the first to the last chosen sentence; recall is that of the whole span.
      let bestStart = -1;
      let bestEnd = -1;
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
        const support = recall(i, -1, false);
        const length = ends[first + i]! - starts[first + i]!;
        // Higher recall wins; on equal recall the shorter sentence does (the tighter evidence span).
        if (support > bestSupport || (support === bestSupport && length < bestLength)) {
          bestStart = i;
          bestEnd = i;
          bestSupport = support;
          bestLength = length;
        }
      }
      if (bestStart >= 0) {
        union.fill(0);
        for (let w = 0; w < words; w++) union[w] = masks[bestStart * words + w]!;
        for (let chosen = 1; chosen < MAX_WINDOW_SENTENCES; chosen++) {
          let pick = -1;
          let pickSupport = bestSupport + EXTRA_SENTENCE_GAIN;
          for (let j = 0; j < count; j++) {
            if (j >= bestStart && j <= bestEnd) continue;
            const lo = Math.min(j, bestStart);
            const hi = Math.max(j, bestEnd);
            if (ends[first + hi]! - starts[first + lo]! > MAX_WINDOW_CHARS) continue;
            let clean = true;
            for (let k = lo; k <= hi && clean; k++) if (sentenceConflicts[k]) clean = false;
            if (!clean) continue;
            for (let w = 0; w < words; w++) scratch[w] = union[w]!;
            for (let k = lo; k <= hi; k++) for (let w = 0; w < words; w++) scratch[w]! |= masks[k * words + w]!;
            const s = recallOf(scratch);
            if (s > pickSupport || (s === pickSupport && pick >= 0 && Math.abs(j - bestStart) < Math.abs(pick - bestStart))) {
              pick = j;
              pickSupport = s;
            }
          }
          if (pick < 0) break;
          bestStart = Math.min(pick, bestStart);
          bestEnd = Math.max(pick, bestEnd);
          for (let k = bestStart; k <= bestEnd; k++) for (let w = 0; w < words; w++) union[w]! |= masks[k * words + w]!;
          bestSupport = pickSupport;
        }
      }
      if (bestStart < 0) continue;
      const a = first + bestStart;
      const z = first + bestEnd;
      let support = calibratedScore(bestSupport);
      let checks: string[] = [];
      // The checks only ever lower a score, so windows that cannot reach the partial floor skip them.
      if (support >= PARTIAL_SUPPORT_FLOOR) {
        const sentences: WindowSentence[] = [];
        const windowTerms = new Set<string>();
        for (let j = bestStart; j <= bestEnd; j++) {
          const r = sentenceReading(chunk, j);
          sentences.push(r);
          for (const sp of r.spans) windowTerms.add(sp.term);
        }
        const verdict = judgeSupport(claim, weight, { terms: windowTerms, sentences, titleTerms: this.#index.titleTerms(chunk.sourceIndex), pageTerms: this.#index.pageTerms(chunk.sourceIndex), ordinaryWord: this.#ordinaryWord });
        support = verdict.score;
        checks = verdict.flags;
      }
      const best: EvidenceWindow = {
        chunk,
        start: starts[a]!,
        end: ends[z]!,
        text: chunk.text.slice(starts[a]!, ends[z]!),
        support: round4(support),
        textMatch: round4(jaccard(bestStart, bestEnd, this.#unionSize(a, z))),
        recall: round4(bestSupport),
        checks,
      };
      const prev = bestBySource.get(chunk.source.source_id);
      if (!prev || best.support > prev.support) bestBySource.set(chunk.source.source_id, best);
      if (!primary || best.support > primary.support) primary = best;
    }
    return { primary, bestBySource, conflicts, conflictSources };
  }

  /** Number of distinct terms in sentences `a..z` (corpus-wide numbers) together; a stamp per term id instead of a set. */
  #unionSize(a: number, z: number): number {
    const { sentenceTerms: terms, sentenceTermStart: termStart } = this.#index;
    if (a === z) return termStart[a + 1]! - termStart[a]!;
    const stamp = ++this.#stamp;
    let n = 0;
    for (let k = termStart[a]!; k < termStart[z + 1]!; k++) {
      const t = terms[k]!;
      if (this.#seen[t] !== stamp) {
        this.#seen[t] = stamp;
        n++;
      }
    }
    return n;
  }
}
