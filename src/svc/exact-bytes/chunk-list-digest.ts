/**
 * The SHA-256 of a manifest's chunk list: which chunks, in which order, at
 * which offsets and lengths. Recorded when ingest writes the manifest
 * (`chunk_list_sha256`, also in the `manifest.written` ledger event), so a
 * restore can tell that the list is still the one ingest wrote without
 * hashing the object's bytes a second time (decision 178): every chunk is
 * verified against its id as it is read, and the ids are bound to the list by
 * this digest, so the bytes are the ones ingest hashed into `sha256`.
 *
 * Codecs and stored lengths are left out on purpose: they say how a chunk is
 * stored, not what the object is, and a repack may change them.
 */
import { createHash } from 'node:crypto';
import type { ChunkRef } from './chunk-ref.ts';

/** Domain separation: this digest is never confused with an object or chunk digest. */
const PREFIX = 'svc-chunk-list-v1\n';

/** Hex SHA-256 of `chunks` (id, offset, length of each, in order). */
export function chunkListSha256(chunks: readonly Pick<ChunkRef, 'id' | 'offset' | 'length'>[]): string {
  const hash = createHash('sha256').update(PREFIX);
  // Lines are batched into strings of ~64 KiB: one update per chunk costs more than the hashing.
  let batch = '';
  for (const c of chunks) {
    batch += `${c.id} ${c.offset} ${c.length}\n`;
    if (batch.length >= 65_536) {
      hash.update(batch);
      batch = '';
    }
  }
  return hash.update(batch).digest('hex');
}
