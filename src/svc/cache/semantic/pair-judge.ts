/**
 * One judgement of a cached question against a new one, shared by the
 * cache's lookup, calibration and the benchmark, so what is measured is what
 * serves: the alignment (query-alignment.ts) refuses what near-topic
 * negatives change, and the similarity that is compared with the operating
 * point's threshold is the alignment's (the built-in embedder) or the cosine
 * of the vectors (a provider's embeddings, caller-supplied vectors).
 * Without text on both sides nothing can be refused for meaning: the cosine
 * alone decides (the caller holds such vectors to a stricter threshold).
 */
import type { Embedder } from './embedder.ts';
import { cosineSimilarity } from './lexical-embedding.ts';
import { type MeaningDifference, alignTokens, sameContentWords } from './query-alignment.ts';
import { normaliseQuery } from './query-normaliser.ts';
import { type QueryToken, queryTokens } from './query-tokens.ts';

/** A similarity meets a threshold with a little slack, so 1 − 0.08 computed as 0.91999… still meets 0.92. */
export function meetsThreshold(similarity: number, threshold: number): boolean {
  return similarity >= threshold - 1e-9;
}

/** Cosine from which two refused vectors count as looking alike. */
const LOOKED_ALIKE = 0.8;

export interface JudgedQuery {
  /** Tokens of the normalised query; null when the query came as a vector alone. */
  tokens: readonly QueryToken[] | null;
  vector: readonly number[];
}

export type Judgement =
  | { refused: false; similarity: number; guarded: boolean }
  /**
   * `lookedAlike`: the two would have passed without the meaning check (the same content words for the alignment; a
   * cosine at the threshold for vectors) — reported as the miss reason `meaning_differs`.
   */
  | { refused: true; reason: MeaningDifference; lookedAlike: boolean };

export function judgeCandidate(similarity: Embedder['similarity'], query: JudgedQuery, candidate: JudgedQuery, threshold = 1): Judgement {
  if (query.tokens === null || candidate.tokens === null) return { refused: false, similarity: cosineSimilarity(query.vector, candidate.vector), guarded: false };
  const alignment = alignTokens(query.tokens, candidate.tokens);
  if (!alignment.same) {
    const lookedAlike =
      similarity === 'alignment' ? sameContentWords(query.tokens, candidate.tokens) : meetsThreshold(cosineSimilarity(query.vector, candidate.vector), Math.min(threshold, LOOKED_ALIKE));
    return { refused: true, reason: alignment.reason, lookedAlike };
  }
  return { refused: false, similarity: similarity === 'alignment' ? alignment.similarity : cosineSimilarity(query.vector, candidate.vector), guarded: true };
}

/**
 * The similarity at which the cache would serve `b` the answer stored for `a` (-1 when it never would: a refusal, or
 * a text without words). Calibration and the benchmark score labelled pairs with this.
 */
export async function scorePair(embedder: Embedder, a: string, b: string): Promise<{ similarity: number; reason?: MeaningDifference | 'no_words' }> {
  const na = normaliseQuery(a);
  const nb = normaliseQuery(b);
  if (na === '' || nb === '') return { similarity: -1, reason: 'no_words' };
  const prepare = async (normalised: string): Promise<JudgedQuery> => ({
    tokens: queryTokens(normalised),
    vector: embedder.similarity === 'cosine' ? await embedder.embed(normalised) : [],
  });
  const judged = judgeCandidate(embedder.similarity, await prepare(nb), await prepare(na));
  return judged.refused ? { similarity: -1, reason: judged.reason } : { similarity: judged.similarity };
}
