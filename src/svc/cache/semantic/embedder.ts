/**
 * Where query vectors come from. The default is the built-in lexical
 * embedding (no network, no weights); a deployment can configure the
 * provider's `/v1/embeddings` route instead (src/svc/ai/providers). Each
 * embedder has an id, and entries are only compared with queries embedded
 * by the same id.
 */
import { LEXICAL_EMBEDDER_ID, lexicalEmbedding } from './lexical-embedding.ts';

export interface Embedder {
  /** Stable id including model and dimensions, e.g. `lexical-ngram@1/512`. */
  readonly id: string;
  /** Similarity at or above which a candidate is considered at all. */
  readonly similarityThreshold: number;
  embed(normalisedText: string): Promise<number[]>;
}

/** Conservative: a false acceptance serves a wrong answer, a miss only costs a provider call. */
export const LEXICAL_SIMILARITY_THRESHOLD = 0.97;

export const lexicalEmbedder: Embedder = {
  id: LEXICAL_EMBEDDER_ID,
  similarityThreshold: LEXICAL_SIMILARITY_THRESHOLD,
  async embed(normalisedText) {
    return lexicalEmbedding(normalisedText);
  },
};
