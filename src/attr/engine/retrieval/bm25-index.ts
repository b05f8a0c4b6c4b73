/**
 * Okapi BM25 over corpus chunks, hand-written: an inverted index of term →
 * (document, term frequency) postings, scored with the usual k1/b saturation
 * and the non-negative "plus one" IDF. Scores accumulate into a dense array
 * so a query touches only the postings of its own terms; the per-posting
 * gain (idf times the term-frequency factor) is computed once, at build.
 */

export interface ScoredDocument {
  doc: number;
  score: number;
}

export interface Bm25Options {
  k1?: number;
  b?: number;
}

/** A term's postings and IDF; obtained from `Bm25Index.term`, passed back to `searchTerms`. */
export interface Postings {
  docs: Int32Array;
  /** Per posting, idf · tf·(k1+1)/(tf + k1·(1-b+b·len/avg)): what the document gains from this term. */
  contributions: Float64Array;
  idf: number;
}

export class Bm25Index {
  readonly #postings = new Map<string, Postings>();
  readonly #documentCount: number;
  readonly #scores: Float64Array;
  /** The documents a search has scored so far (the first `count` entries), reused by every search. */
  readonly #touched: Int32Array;

  /** `documents[i]` is the token list of document i. */
  constructor(documents: readonly (readonly string[])[], options: Bm25Options = {}) {
    const k1 = options.k1 ?? 1.2;
    const b = options.b ?? 0.75;
    const N = documents.length;
    this.#documentCount = N;
    this.#scores = new Float64Array(N);
    this.#touched = new Int32Array(N);
    const avg = N === 0 ? 0 : documents.reduce((s, d) => s + d.length, 0) / N;
    const raw = new Map<string, { docs: number[]; factors: number[] }>();
    documents.forEach((tokens, doc) => {
      const norm = k1 * (1 - b + (b * tokens.length) / (avg || 1));
      const counts = new Map<string, number>();
      for (const t of tokens) counts.set(t, (counts.get(t) ?? 0) + 1);
      for (const [term, tf] of counts) {
        let p = raw.get(term);
        if (!p) raw.set(term, (p = { docs: [], factors: [] }));
        p.docs.push(doc);
        p.factors.push((tf * (k1 + 1)) / (tf + norm));
      }
    });
    for (const [term, p] of raw) {
      const n = p.docs.length;
      const idf = Math.log(1 + (N - n + 0.5) / (n + 0.5));
      this.#postings.set(term, { docs: Int32Array.from(p.docs), contributions: Float64Array.from(p.factors, (f) => idf * f), idf });
    }
  }

  get documentCount(): number {
    return this.#documentCount;
  }

  /** Inverse document frequency, always > 0 (BM25+ style: ln(1 + (N - n + 0.5)/(n + 0.5))). */
  idf(term: string): number {
    return this.#postings.get(term)?.idf ?? this.unseenIdf;
  }

  /** The IDF of a term no document has. */
  get unseenIdf(): number {
    return Math.log(1 + (this.#documentCount + 0.5) / 0.5);
  }

  /** The postings of a term, undefined when no document has it. */
  term(term: string): Postings | undefined {
    return this.#postings.get(term);
  }

  /** Every indexed term with its postings. */
  terms(): IterableIterator<[string, Postings]> {
    return this.#postings.entries();
  }

  /** The `limit` best documents for the query tokens, best first; ties by document order. */
  search(queryTokens: readonly string[], limit: number): ScoredDocument[] {
    return this.searchTerms([...new Set(queryTokens)].map((t) => this.#postings.get(t)).filter((p): p is Postings => p !== undefined), limit);
  }

  /** `search` for query terms already looked up: distinct, in query order. */
  searchTerms(terms: readonly Postings[], limit: number): ScoredDocument[] {
    const touched = this.#touched;
    let touchedCount = 0;
    const scores = this.#scores;
    // Terms in more than half the documents carry almost no evidence (IDF < ln 2) but cost a full
    // pass over the corpus; they are skipped when the query has any more specific term.
    const specific = terms.filter((p) => p.docs.length * 2 <= this.#documentCount);
    for (const p of specific.length > 0 ? specific : terms) {
      const { docs, contributions } = p;
      for (let i = 0; i < docs.length; i++) {
        const doc = docs[i]!;
        const score = scores[doc]!;
        if (score === 0) touched[touchedCount++] = doc;
        scores[doc] = score + contributions[i]!;
      }
    }
    // Top-k by insertion into a small sorted array: touched can be every document, k is small.
    const top: ScoredDocument[] = [];
    let floor = -Infinity; // the k-th best score once k documents are in: anything below it cannot enter
    for (let t = 0; t < touchedCount; t++) {
      const doc = touched[t]!;
      const score = scores[doc]!;
      scores[doc] = 0;
      if (score < floor) continue;
      if (top.length === limit && !better(score, doc, top[limit - 1]!)) continue;
      let at = top.length;
      while (at > 0 && better(score, doc, top[at - 1]!)) at--;
      top.splice(at, 0, { doc, score });
      if (top.length > limit) top.pop();
      if (top.length === limit) floor = top[limit - 1]!.score;
    }
    return top;
  }
}

function better(score: number, doc: number, than: ScoredDocument): boolean {
  return score > than.score || (score === than.score && doc < than.doc);
}
