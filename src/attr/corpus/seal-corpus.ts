/**
 * Recomputes `content_sha256` for every record of a corpus JSONL text. For
 * corpus maintainers after editing chunk text (loadCorpus rejects stale
 * hashes); never used at load time, which must verify, not repair.
 */
import { sourceContentSha256 } from './content-hash.ts';
import type { CorpusChunk } from './corpus-record.ts';

export function sealCorpusText(text: string): string {
  return text
    .split('\n')
    .map((line) => {
      const trimmed = line.trim();
      if (trimmed === '' || trimmed.startsWith('#')) return line;
      const record = JSON.parse(trimmed) as { chunks: CorpusChunk[]; content_sha256?: string };
      return JSON.stringify({ ...record, content_sha256: sourceContentSha256(record.chunks) });
    })
    .join('\n');
}
