/**
 * The read-side check every chunk store applies before it returns bytes:
 * decode the stored form, then compare the SHA-256 of the result with the
 * chunk id. Shared by all backends so that "verified" means the same thing
 * whichever one holds the bytes.
 */
import { SvcError } from '../errors.ts';
import type { ChunkCodec } from '../chunking/chunk-codec.ts';
import { decodeChunk } from '../chunking/chunk-codec.ts';
import { chunkIdOfAsync } from './chunk-id.ts';
import type { ChunkReadFailure } from './chunk-store.ts';

/** The `rehydration_failed` error for one chunk, naming it and the reason. */
export function chunkReadFailure(id: string, reason: ChunkReadFailure, cause?: unknown): SvcError {
  const message = reason === 'missing' ? `chunk ${id} is missing from the chunk store` : `chunk ${id} failed verification (${reason})`;
  return new SvcError('rehydration_failed', message, { details: { chunk_id: id, reason }, cause });
}

/**
 * The raw bytes of a stored chunk, only if they are the bytes `id` names.
 * @param rawLengthHint from the manifest; lets the decoder allocate once, not trusted
 * @throws SvcError `rehydration_failed` with reason `undecodable` or `corrupt`
 */
export async function decodeVerifiedChunk(id: string, codec: ChunkCodec, stored: Uint8Array, rawLengthHint?: number): Promise<Uint8Array> {
  let decoded: Uint8Array;
  try {
    decoded = await decodeChunk(codec, stored, rawLengthHint);
  } catch (err) {
    throw chunkReadFailure(id, 'undecodable', err);
  }
  if ((await chunkIdOfAsync(decoded)) !== id) throw chunkReadFailure(id, 'corrupt');
  return decoded;
}
