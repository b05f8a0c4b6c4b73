/**
 * The content hash of a corpus source: SHA-256 over the canonical JSON of its
 * chunk list (`[{chunk_id, text}, ...]`, in order). Binding chunk ids as well
 * as text means a re-chunked source gets a new hash, so claim rows that name
 * a chunk id can never silently point at different text.
 */
import { canonicalSha256 } from '../../core/hashing.ts';
import type { CorpusChunk } from './corpus-record.ts';

export function sourceContentSha256(chunks: readonly CorpusChunk[]): string {
  return canonicalSha256(chunks.map((c) => ({ chunk_id: c.chunk_id, text: c.text })));
}
