/**
 * Loads and validates a corpus JSONL file. Every line is checked against the
 * record schema, every content hash is recomputed, and source ids must be
 * unique; the first problem is reported as an `AttrError` naming the line.
 */
import { readFile } from 'node:fs/promises';
import { Compile } from 'typebox/compile';
import { sha256Hex } from '../../core/hashing.ts';
import { AttrError } from '../errors.ts';
import { sourceContentSha256 } from './content-hash.ts';
import { CorpusRecordSchema, type CorpusRecord } from './corpus-record.ts';

/** A validated, immutable corpus. `sha256` is the hash of the file bytes, recorded in every usage event. */
export interface Corpus {
  readonly sources: readonly CorpusRecord[];
  readonly sha256: string;
}

const checkRecord = Compile(CorpusRecordSchema);

/** Parses corpus JSONL text (blank lines and lines starting with `#` are skipped). */
export function parseCorpus(text: string): Corpus {
  const sources: CorpusRecord[] = [];
  const seenIds = new Map<string, number>();
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const lineNo = i + 1;
    const line = lines[i]!.trim();
    if (line === '' || line.startsWith('#')) continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      throw new AttrError('corpus_invalid', `corpus line ${lineNo}: not valid JSON`, { details: { line: lineNo }, cause: err });
    }
    if (!checkRecord.Check(value)) {
      const first = [...checkRecord.Errors(value)][0];
      const where = first?.instancePath || '/';
      throw new AttrError('corpus_invalid', `corpus line ${lineNo}: ${where} ${first?.message ?? 'does not match the corpus record schema'}`, {
        details: { line: lineNo, path: where },
      });
    }
    const record = value as CorpusRecord;
    const previous = seenIds.get(record.source_id);
    if (previous !== undefined) {
      throw new AttrError('corpus_invalid', `corpus line ${lineNo}: source_id ${record.source_id} already used on line ${previous}`, {
        details: { line: lineNo, source_id: record.source_id },
      });
    }
    seenIds.set(record.source_id, lineNo);
    const chunkIds = new Set<string>();
    for (const chunk of record.chunks) {
      if (chunkIds.has(chunk.chunk_id)) {
        throw new AttrError('corpus_invalid', `corpus line ${lineNo}: chunk_id ${chunk.chunk_id} repeated`, { details: { line: lineNo } });
      }
      chunkIds.add(chunk.chunk_id);
    }
    const computed = sourceContentSha256(record.chunks);
    if (computed !== record.content_sha256) {
      throw new AttrError('corpus_hash_mismatch', `corpus line ${lineNo}: content_sha256 does not match the chunks of ${record.source_id}`, {
        details: { line: lineNo, source_id: record.source_id, expected: computed },
      });
    }
    sources.push(Object.freeze(record));
  }
  if (sources.length === 0) throw new AttrError('corpus_invalid', 'corpus has no sources');
  return Object.freeze({ sources: Object.freeze(sources), sha256: sha256Hex(text) });
}

/** Reads and validates a corpus file. */
export async function loadCorpus(path: string): Promise<Corpus> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    throw new AttrError('corpus_unreadable', `cannot read corpus file ${path}`, { cause: err });
  }
  return parseCorpus(text);
}
