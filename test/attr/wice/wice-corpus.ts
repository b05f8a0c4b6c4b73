/**
 * WiCE rows (Kamoi et al., 2023) as an attr corpus: each row's cited page is
 * one registered source (one corpus for all rows), its claim the answer to
 * attribute. Used by the attr-quality bench (the whole dev split) and by a
 * fast test over a committed slice. Nothing here knows about any row: the
 * conversion is the same for every page.
 */
import { readFileSync } from 'node:fs';
import { parseCorpus, type Corpus } from '../../../src/attr/corpus/load-corpus.ts';
import { sourceContentSha256 } from '../../../src/attr/corpus/content-hash.ts';

export type WiceLabel = 'supported' | 'partially_supported' | 'not_supported';

export const WICE_LABELS: readonly WiceLabel[] = ['supported', 'partially_supported', 'not_supported'];

export interface WiceRow {
  label: WiceLabel;
  claim: string;
  evidence: string[];
  supporting_sentences: number[][];
}

/** Where a registered page's evidence sentences landed: chunk id and character range per sentence index. */
export interface SentencePlace {
  chunkId: string;
  start: number;
  end: number;
}

export interface WiceCorpus {
  corpus: Corpus;
  /** Per row: source id and where each evidence sentence sits in the chunks. */
  sources: Array<{ sourceId: string; places: Map<number, SentencePlace> }>;
}

/** Chunks hold whole sentences, one per line, up to about this many characters. */
const CHUNK_CHARS = 2000;
const META_TITLE = /^\(meta data\) TITLE:\s*(.*)$/;

export function readWiceRows(path: string): WiceRow[] {
  return readFileSync(path, 'utf8').split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as WiceRow);
}

/** One source per row: the page title (from WiCE's meta line) and its sentences, one per line, in chunks. */
export function wiceCorpus(rows: readonly WiceRow[]): WiceCorpus {
  const lines: string[] = [];
  const sources: WiceCorpus['sources'] = [];
  rows.forEach((row, i) => {
    const sourceId = `wice-${i + 1}`;
    let title = '';
    const chunks: Array<{ chunk_id: string; text: string }> = [];
    const places = new Map<number, SentencePlace>();
    let text = '';
    const flush = () => {
      if (text !== '') chunks.push({ chunk_id: `c${chunks.length + 1}`, text });
      text = '';
    };
    row.evidence.forEach((raw, s) => {
      const meta = raw.match(META_TITLE);
      if (meta) {
        title = meta[1]!.trim();
        return;
      }
      const sentence = raw.replace(/\s+/g, ' ').trim();
      if (sentence === '') return;
      if (text !== '' && text.length + 1 + sentence.length > CHUNK_CHARS) flush();
      const start = text === '' ? 0 : text.length + 1;
      text = text === '' ? sentence : `${text}\n${sentence}`;
      places.set(s, { chunkId: `c${chunks.length + 1}`, start, end: start + sentence.length });
    });
    flush();
    if (chunks.length === 0) chunks.push({ chunk_id: 'c1', text: title || 'empty page' });
    lines.push(
      JSON.stringify({
        schema: 'attr-corpus-source/v1', source_id: sourceId, work_id: `work-${sourceId}`, title: title || sourceId,
        uri: `https://wice.example.org/page/${i + 1}`, rights_holder: { id: `rh-${sourceId}`, name: 'cited page' },
        royalty_terms: { license: 'CC-BY-SA-4.0', royalty_eligible: true }, published_at: null, updated_at: null,
        chunks, content_sha256: sourceContentSha256(chunks),
      }),
    );
    sources.push({ sourceId, places });
  });
  return { corpus: parseCorpus(lines.join('\n')), sources };
}
