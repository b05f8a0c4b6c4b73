/**
 * Identifiers: `<prefix>_<ULID>`. ULIDs sort by creation time (48-bit ms
 * timestamp) and carry 80 random bits, so ids are globally unique and
 * `ORDER BY id` is creation order — which pagination relies on.
 */
import { randomFillSync } from 'node:crypto';
import { monotonicFactory } from 'ulidx';

export const ID_PREFIXES = {
  workUnit: 'wu',
  manifest: 'mf',
  plan: 'pl',
  event: 'evt',
  policy: 'pol',
  policyBundle: 'pb',
  cacheKey: 'ck',
  chunk: 'ch',
  transform: 'tx',
  verifierResult: 'vr',
  approval: 'apr',
  upload: 'up',
  job: 'job',
  semanticCalibration: 'cal',
  trace: 'tr',
  legalHold: 'lh',
  benchmarkRun: 'bm',
  restoreTest: 'rt',
  adapterRecord: 'adr',
} as const;

export type IdPrefix = (typeof ID_PREFIXES)[keyof typeof ID_PREFIXES];

/**
 * Cryptographic random numbers in [0, 1) drawn from a pooled buffer: ulidx's
 * default asks the OS for ONE byte per character (16 calls per id), which
 * showed up as the largest single cost of an AI request. One refill serves
 * 256 ids. `byte / 256` keeps the 32-symbol alphabet uniform (the default's
 * `byte / 255` over-weights the last symbol).
 */
const pool = new Uint8Array(4096);
let poolAt = pool.length;
export function pooledRandom(): number {
  if (poolAt === pool.length) {
    randomFillSync(pool);
    poolAt = 0;
  }
  return pool[poolAt++]! / 256;
}

const ulid = monotonicFactory(pooledRandom);

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid().toLowerCase()}`;
}

/** True when `id` is `<prefix>_` followed by a lowercase ULID. */
export function isId(id: string, prefix: IdPrefix): boolean {
  return new RegExp(`^${prefix}_[0-9a-hjkmnp-tv-z]{26}$`).test(id);
}
