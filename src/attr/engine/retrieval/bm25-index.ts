/**
 * Okapi BM25 over corpus chunks, hand-written: an inverted index of term →
 * (document, term frequency) postings, scored with the usual k1/b saturation
 * and the non-negative "plus one" IDF. Scores accumulate into a dense array
 * so a query touches only the postings of its own terms.
 */

export interface ScoredDocument {
  doc: number;
  score: number;
}

export interface Bm25Options {
  k1?: number;
  b?: number;
}

export class Bm25Index {
  readonly #postings = new Map<string, { docs: number[]; tfs: number[] }>();
  readonly #docLengths: Float64Array;
  readonly #avgLength: number;
  readonly #k1: number;
  readonly #b: number;
  readonly #scores: Float64Array;

  /** `documents[i]` is the token list of document i. */
  constructor(documents: readonly (readonly string[])[], options: Bm25Options = {}) {
    this.#k1 = options.k1 ?? 1.2;
    this.#b = options.b ?? 0.75;
    this.#docLengths = new Float64Array(documents.length);
    this.#scores = new Float64Array(documents.length);
    let total = 0;
    documents.forEach((tokens, doc) => {
      this.#docLengths[doc] = tokens.length;
      total += tokens.length;
      const counts = new Map<string, number>();
      for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
      for (const [term, tf] of counts) {
        let p = this.#postings.get(term);
        if (!p) this.#postings.set(term, (p = { docs: [], tfs: [] }));
        p.docs.push(doc);
        p.tfs.push(tf);
      }
    });
    this.#avgLength = documents.length === 0 ? 0 : total / documents.length;
  }

  get documentCount(): number {
    return this.#docLengths.length;
  }

  /** Inverse document frequency, always > 0 (BM25+ style: ln(1 + (N - n + 0.5)/(n + 0.5))). */
  idf(term: string): number {
    const n = this.#postings.get(term)?.docs.length ?? 0;
    const N = this.#docLengths.length;
    return Math.log(1 + (N - n + 0.5) / (n + 0.5));
  }

  /** The `limit` best documents for the query tokens, best first; ties by document order. */
  search(queryTokens: readonly string[], limit: number): ScoredDocument[] {
    const touched: number[] = [];
    const scores = this.#scores;
    for (const term of new Set(queryTokens)) {
      const p = this.#postings.get(term);
      if (!p) continue;
      const idf = this.idf(term);
      for (let i = 0; i < p.docs.length; i++) {
        const doc = p.docs[i]!;
        const tf = p.tfs[i]!;
        const norm = this.#k1 * (1 - this.#b + (this.#b * this.#docLengths[doc]!) / (this.#avgLength || 1));
        if (scores[doc] === 0) touched.push(doc);
        scores[doc]! += (idf * tf * (this.#k1 + 1)) / (tf + norm);
      }
    }
    const results = touched.map((doc) => ({ doc, score: scores[doc]! }));
    for (const doc of touched) scores[doc] = 0;
    results.sort((a, b) => b.score - a.score || a.doc - b.doc);
    return results.slice(0, limit);
  }
}
