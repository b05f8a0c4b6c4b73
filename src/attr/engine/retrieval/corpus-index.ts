/**
 * The searchable form of a corpus: every chunk split into sentences with
 * offsets and tokens (evidence spans are built from these), plus a BM25
 * index over whole chunks for candidate retrieval. Built once per engine.
 * Sentence tokens are also interned as integer term ids, so scoring a
 * window against a claim compares small integers instead of hashing strings.
 */
import type { Corpus } from '../../corpus/load-corpus.ts';
import type { CorpusRecord } from '../../corpus/corpus-record.ts';
import { segmentSentences } from '../text/sentence-segmenter.ts';
import { contentTokens } from '../text/tokenizer.ts';
import { Bm25Index } from './bm25-index.ts';

export interface IndexedSentence {
  start: number;
  end: number;
  text: string;
  tokens: ReadonlySet<string>;
  /** The ids (`CorpusIndex.termId`) of `tokens`, ascending, are `sentenceTerms[termStart..termEnd)`. */
  termStart: number;
  termEnd: number;
}

export interface IndexedChunk {
  source: CorpusRecord;
  /** Position of the source in the corpus (stable tie-breaker). */
  sourceIndex: number;
  chunkId: string;
  text: string;
  sentences: readonly IndexedSentence[];
}

export class CorpusIndex {
  readonly chunks: readonly IndexedChunk[];
  /** Every sentence's term ids, one sentence after another (one array: no object per sentence to reach them). */
  readonly sentenceTerms: Int32Array;
  readonly #bm25: Bm25Index;
  readonly #termIds = new Map<string, number>();

  constructor(corpus: Corpus) {
    const chunks: IndexedChunk[] = [];
    const docs: string[][] = [];
    const sentenceTerms: number[] = [];
    const intern = (term: string): number => {
      let id = this.#termIds.get(term);
      if (id === undefined) this.#termIds.set(term, (id = this.#termIds.size));
      return id;
    };
    corpus.sources.forEach((source, sourceIndex) => {
      for (const chunk of source.chunks) {
        const sentences = segmentSentences(chunk.text).map((s) => {
          const tokens = new Set(contentTokens(s.text));
          const termStart = sentenceTerms.length;
          sentenceTerms.push(...Int32Array.from(tokens, intern).sort());
          return { ...s, tokens, termStart, termEnd: sentenceTerms.length };
        });
        chunks.push({ source, sourceIndex, chunkId: chunk.chunk_id, text: chunk.text, sentences });
        docs.push(contentTokens(`${source.title} ${chunk.text}`));
      }
    });
    this.chunks = chunks;
    this.sentenceTerms = Int32Array.from(sentenceTerms);
    this.#bm25 = new Bm25Index(docs);
  }

  /** Id of a term found in some corpus sentence; undefined for any other term. */
  termId(term: string): number | undefined {
    return this.#termIds.get(term);
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
