/**
 * The searchable form of a corpus: every chunk split into sentences with
 * offsets and tokens (evidence spans are built from these), plus a BM25
 * index over whole chunks for candidate retrieval. Built once per engine.
 * Sentence tokens are also interned as integer term ids, so scoring a
 * window against a claim compares small integers instead of hashing strings,
 * and what scoring reads per sentence (term ids, offsets) sits in
 * corpus-wide typed arrays rather than in one object per sentence.
 */
import type { Corpus } from '../../corpus/load-corpus.ts';
import type { CorpusRecord } from '../../corpus/corpus-record.ts';
import { segmentSentences } from '../text/sentence-segmenter.ts';
import { contentTokens, eachContentToken, tokenSpans } from '../text/tokenizer.ts';
import { negatedTerms, PASSIVE } from '../support/claim-reading.ts';
import type { WindowSentence } from '../support/support-judge.ts';
import { Bm25Index, type Postings } from './bm25-index.ts';

export interface IndexedSentence {
  start: number;
  end: number;
  text: string;
  tokens: ReadonlySet<string>;
}

export interface IndexedChunk {
  source: CorpusRecord;
  /** Position of the source in the corpus (stable tie-breaker). */
  sourceIndex: number;
  chunkId: string;
  text: string;
  sentences: readonly IndexedSentence[];
  /** Corpus-wide number of the first of `sentences` (see the `sentence*` arrays of CorpusIndex). */
  firstSentence: number;
}

/** Everything retrieval needs about one term, found with one lookup (`CorpusIndex.lookup`). */
export interface IndexedTerm {
  /** Sentence term id (as in `sentenceTerms`), -1 when no sentence has the term. */
  id: number;
  idf: number;
  /** BM25 postings, undefined when no chunk has the term. */
  postings: Postings | undefined;
}

export class CorpusIndex {
  readonly chunks: readonly IndexedChunk[];
  /** Term ids (`IndexedTerm.id`) of every sentence, ascending within a sentence, one sentence after another. */
  readonly sentenceTerms: Int32Array;
  /** Sentence s (corpus-wide number) has the term ids `sentenceTerms[sentenceTermStart[s]..sentenceTermStart[s + 1])`. */
  readonly sentenceTermStart: Int32Array;
  /** Character offsets of sentence s in its chunk's text (as `IndexedSentence.start` / `.end`). */
  readonly sentenceStart: Int32Array;
  readonly sentenceEnd: Int32Array;
  readonly #bm25: Bm25Index;
  readonly #termIds = new Map<string, number>();
  readonly #terms = new Map<string, IndexedTerm>();
  readonly #unknownTerm: IndexedTerm;
  readonly #titleTerms: ReadonlySet<string>[];
  readonly #pageTerms: Set<string>[];
  readonly #readings: Array<WindowSentence | undefined>;
  /** Per term id: how often the corpus writes it in lower case, and with a capital away from a sentence's start. */
  readonly #lowerCount: Int32Array;
  readonly #capitalCount: Int32Array;

  constructor(corpus: Corpus) {
    const chunks: IndexedChunk[] = [];
    this.#titleTerms = corpus.sources.map((s) => new Set(contentTokens(s.title)));
    this.#pageTerms = corpus.sources.map(() => new Set<string>());
    const docs: string[][] = [];
    const sentenceTerms: number[] = [];
    const termStarts: number[] = [];
    const starts: number[] = [];
    const ends: number[] = [];
    const lower: number[] = [];
    const capital: number[] = [];
    const intern = (term: string): number => {
      let id = this.#termIds.get(term);
      if (id === undefined) this.#termIds.set(term, (id = this.#termIds.size));
      return id;
    };
    corpus.sources.forEach((source, sourceIndex) => {
      for (const chunk of source.chunks) {
        const firstSentence = starts.length;
        const sentences = segmentSentences(chunk.text).map((s) => {
          const tokens = new Set<string>();
          eachContentToken(s.text, (term, capitalized, first) => {
            tokens.add(term);
            if (first) return;
            const id = intern(term);
            if (capitalized) capital[id] = (capital[id] ?? 0) + 1;
            else lower[id] = (lower[id] ?? 0) + 1;
          }, true);
          const page = this.#pageTerms[sourceIndex]!;
          for (const t of tokens) page.add(t);
          termStarts.push(sentenceTerms.length);
          sentenceTerms.push(...Int32Array.from(tokens, intern).sort());
          starts.push(s.start);
          ends.push(s.end);
          return { ...s, tokens };
        });
        chunks.push({ source, sourceIndex, chunkId: chunk.chunk_id, text: chunk.text, sentences, firstSentence });
        docs.push(contentTokens(`${source.title} ${chunk.text}`));
      }
    });
    this.chunks = chunks;
    this.sentenceTerms = Int32Array.from(sentenceTerms);
    this.sentenceTermStart = Int32Array.from([...termStarts, sentenceTerms.length]);
    this.sentenceStart = Int32Array.from(starts);
    this.sentenceEnd = Int32Array.from(ends);
    this.#readings = new Array<WindowSentence | undefined>(ends.length).fill(undefined);
    this.#lowerCount = Int32Array.from({ length: this.#termIds.size }, (_, i) => lower[i] ?? 0);
    this.#capitalCount = Int32Array.from({ length: this.#termIds.size }, (_, i) => capital[i] ?? 0);
    this.#bm25 = new Bm25Index(docs);
    for (const [term, postings] of this.#bm25.terms()) this.#terms.set(term, { id: this.#termIds.get(term) ?? -1, idf: postings.idf, postings });
    for (const [term, id] of this.#termIds) if (!this.#terms.has(term)) this.#terms.set(term, { id, idf: this.#bm25.idf(term), postings: undefined });
    this.#unknownTerm = { id: -1, idf: this.#bm25.unseenIdf, postings: undefined };
  }

  /**
   * What the support checks read of one sentence (tokens with offsets,
   * negated words, passive voice), computed on first use and kept: it is a
   * pure function of the sentence text, and the same sentences are judged
   * again and again.
   */
  sentenceReading(chunk: IndexedChunk, j: number): WindowSentence {
    const key = chunk.firstSentence + j;
    let r = this.#readings[key];
    if (r === undefined) {
      const text = chunk.sentences[j]!.text;
      const spans = tokenSpans(text, true);
      r = { lower: text.toLowerCase(), spans, negatedTerms: negatedTerms(text, spans), passive: PASSIVE.test(text) };
      this.#readings[key] = r;
    }
    return r;
  }

  /** Content tokens of a source's title (names a page is about are often only in its title). */
  titleTerms(sourceIndex: number): ReadonlySet<string> {
    return this.#titleTerms[sourceIndex]!;
  }

  /** Content tokens of every chunk of a source (what the cited page says anywhere, not only in one window). */
  pageTerms(sourceIndex: number): ReadonlySet<string> {
    return this.#pageTerms[sourceIndex]!;
  }

  /**
   * True when the corpus writes the term mostly in lower case away from a
   * sentence's start: an ordinary word ("instead", "since", "today"), not a
   * name, even when a claim capitalises it as its first word. A term the
   * corpus never writes is not known to be ordinary.
   */
  ordinaryWord(term: string): boolean {
    const id = this.#termIds.get(term);
    if (id === undefined) return false;
    return this.#lowerCount[id]! > this.#capitalCount[id]!;
  }

  /** A term's id, IDF and postings in one lookup. */
  lookup(term: string): IndexedTerm {
    return this.#terms.get(term) ?? this.#unknownTerm;
  }

  /** `candidates` for distinct terms already looked up, in query order. */
  candidatesFor(terms: readonly IndexedTerm[], limit: number): IndexedChunk[] {
    const postings: Postings[] = [];
    for (const t of terms) if (t.postings !== undefined) postings.push(t.postings);
    return this.#bm25.searchTerms(postings, limit).map((r) => this.chunks[r.doc]!);
  }

  /** Number of distinct sentence terms (ids run from 0 to this, exclusive). */
  get termCount(): number {
    return this.#termIds.size;
  }

  idf(term: string): number {
    return this.#bm25.idf(term);
  }

  /** The `limit` chunks that best match the tokens, best first. */
  candidates(tokens: readonly string[], limit: number): IndexedChunk[] {
    return this.#bm25.search(tokens, limit).map((r) => this.chunks[r.doc]!);
  }
}
