/**
 * Where query vectors come from, and how a candidate's similarity is
 * measured. The default is the built-in lexical embedder (no network, no
 * weights): its similarity is the word alignment of query-alignment.ts, so it
 * stores no vector at all (candidates come from the lookup key). A deployment can configure a
 * provider's `/v1/embeddings` route instead (provider-embedder.ts): cosine
 * similarity of its vectors, with the alignment's refusals on top. Each
 * embedder has an id, and entries are only compared with queries embedded by
 * the same id.
 */
/** Stable id of the built-in judgement (the alignment and its word lists); entries of another version are never compared. */
export const LEXICAL_EMBEDDER_ID = 'lexical-align@6';

export interface Embedder {
  /** Stable id including model and version, e.g. `lexical-align@6` or `provider:openai/text-embedding-3-small`. */
  readonly id: string;
  /** Similarity at or above which a candidate is accepted when the domain has no calibration. */
  readonly similarityThreshold: number;
  /** `alignment`: the similarity is the word alignment's (lexical); `cosine`: the cosine of the vectors (provider). */
  readonly similarity: 'alignment' | 'cosine';
  embed(normalisedText: string): Promise<number[]>;
}

/**
 * The shipped operating point of the built-in embedder, chosen on the QQP development split (docs/semantic-cache.md,
 * decisions 176, 187, 204 and 206): false acceptance 0.064 % (8 of 12,521; 4 of each half, 5 of the 8 label noise),
 * paraphrase hit rate 6.3 % (474 of 7,477). 0.92 serves more paraphrases but puts the even half at 0.096 %.
 */
export const LEXICAL_SIMILARITY_THRESHOLD = 0.925;

export const lexicalEmbedder: Embedder = {
  id: LEXICAL_EMBEDDER_ID,
  similarityThreshold: LEXICAL_SIMILARITY_THRESHOLD,
  similarity: 'alignment',
  // The alignment needs the text only; an empty vector keeps 100,000 entries small (no 4 KiB vector each).
  async embed() {
    return [];
  },
};
