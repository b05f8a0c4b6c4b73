/**
 * Chunk identity: `ch_` + the hex SHA-256 of the chunk's raw (decoded) bytes.
 * Content addressing makes dedupe a lookup and lets every read verify the
 * bytes it returns against the name it asked for.
 */
import { createHash, webcrypto } from 'node:crypto';

export const CHUNK_ID_PREFIX = 'ch_';

export const CHUNK_ID_PATTERN = /^ch_[0-9a-f]{64}$/;

export function isChunkId(value: string): boolean {
  return CHUNK_ID_PATTERN.test(value);
}

/** The hex digest part of a chunk id. */
export function chunkDigestHex(chunkId: string): string {
  return chunkId.slice(CHUNK_ID_PREFIX.length);
}

/** Chunk id of `data`, hashed on the calling thread. */
export function chunkIdOf(data: Uint8Array): string {
  return CHUNK_ID_PREFIX + createHash('sha256').update(data).digest('hex');
}

/**
 * Chunk id of `data`, hashed on the libuv thread pool (WebCrypto digest). The
 * ingest and rehydration paths use it so that chunk hashing runs in parallel
 * with the main thread's work (chunking, whole-object hashing).
 */
export async function chunkIdOfAsync(data: Uint8Array): Promise<string> {
  const digest = await webcrypto.subtle.digest('SHA-256', data);
  return CHUNK_ID_PREFIX + Buffer.from(digest).toString('hex');
}
