/**
 * Parameters of content-defined chunking and their validation. The defaults
 * were chosen by the `object-exact-v1` benchmark (docs/chunking.md and
 * docs/decisions/020-chunk-size-defaults.md): 64 KiB average balances the
 * bytes a 1-byte insert adds (about one chunk) against per-chunk costs (one
 * file, one hash, one manifest row per chunk).
 */
import { SvcError } from '../errors.ts';
import { GEAR_TABLE_ID } from './gear-table.ts';

export interface ChunkingParams {
  /** No boundary is looked for before this many bytes (cut-point skipping). */
  minSize: number;
  /** Target average; must be a power of two (it defines the hash masks). */
  avgSize: number;
  /** A chunk is cut here if no boundary was found earlier. */
  maxSize: number;
  /**
   * FastCDC normalisation level (0–3): the mask before `avgSize` has this many
   * more bits, the one after it this many fewer, which pulls chunk sizes
   * towards the average.
   */
  normalization: number;
}

export const DEFAULT_CHUNKING: Readonly<ChunkingParams> = Object.freeze({
  minSize: 16 * 1024,
  avgSize: 64 * 1024,
  maxSize: 256 * 1024,
  normalization: 2,
});

/** Accepted bounds: small enough to be cheap to test, large enough to stay sane. */
const MIN_AVG = 256;
const MAX_AVG = 8 * 1024 * 1024;

/** What a manifest records so that the chunking of an object can be reproduced. */
export interface ChunkingDescriptor {
  algorithm: 'fastcdc';
  gear: string;
  min_size: number;
  avg_size: number;
  max_size: number;
  normalization: number;
}

export function describeChunking(params: ChunkingParams): ChunkingDescriptor {
  return {
    algorithm: 'fastcdc',
    gear: GEAR_TABLE_ID,
    min_size: params.minSize,
    avg_size: params.avgSize,
    max_size: params.maxSize,
    normalization: params.normalization,
  };
}

/**
 * Checks a parameter set and returns a frozen copy.
 * @throws SvcError `invalid_request` naming the offending field.
 */
export function validateChunkingParams(input: Partial<ChunkingParams> = {}): Readonly<ChunkingParams> {
  const p: ChunkingParams = { ...DEFAULT_CHUNKING, ...input };
  const fail = (field: string, why: string): never => {
    throw new SvcError('invalid_request', `chunking.${field}: ${why}`, { details: { field: `chunking.${field}` } });
  };
  for (const field of ['minSize', 'avgSize', 'maxSize', 'normalization'] as const) {
    if (!Number.isSafeInteger(p[field])) fail(field, 'must be an integer');
  }
  if (p.avgSize < MIN_AVG || p.avgSize > MAX_AVG) fail('avgSize', `must be between ${MIN_AVG} and ${MAX_AVG}`);
  if ((p.avgSize & (p.avgSize - 1)) !== 0) fail('avgSize', 'must be a power of two');
  if (p.minSize < 64 || p.minSize >= p.avgSize) fail('minSize', 'must be at least 64 and below avgSize');
  if (p.maxSize <= p.avgSize || p.maxSize > 64 * 1024 * 1024) fail('maxSize', 'must be above avgSize and at most 64 MiB');
  if (p.normalization < 0 || p.normalization > 3) fail('normalization', 'must be 0, 1, 2 or 3');
  return Object.freeze(p);
}
