/**
 * Chunk identity: `ch_` + the hex SHA-256 of the chunk's raw (decoded) bytes.
 * Content addressing makes dedupe a lookup and lets every read verify the
 * bytes it returns against the name it asked for.
 */
import { createHash } from 'node:crypto';
import { HashPool } from './hash-pool.ts';

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
 * Chunk id of `data`, hashed on a worker thread (see hash-pool.ts), so that
 * ingest and rehydration hash in parallel with the main thread's work.
 */
export async function chunkIdOfAsync(data: Uint8Array): Promise<string> {
  return CHUNK_ID_PREFIX + (await HashPool.shared().digest(data));
}
