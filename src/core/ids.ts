/**
 * Identifiers: `<prefix>_<ULID>`. ULIDs sort by creation time (48-bit ms
 * timestamp) and carry 80 random bits, so ids are globally unique and
 * `ORDER BY id` is creation order — which pagination relies on.
 */
import { randomFillSync } from 'node:crypto';

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

/** Crockford base32 in lower case: ids are `<prefix>_` + a lowercase ULID. */
const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';
/** The 10 time characters of the current millisecond, made once per millisecond. */
let lastMs = -1;
let timeChars = '';
/** The 16 random characters as alphabet indexes (80 bits); incremented within one millisecond. */
const randomDigits = new Uint8Array(16);

/** The 10-character ULID time part (48-bit ms timestamp, most significant first). */
export function encodeUlidTime(ms: number): string {
  let out = '';
  for (let i = 0; i < 10; i++) {
    out = ALPHABET[ms % 32]! + out;
    ms = Math.floor(ms / 32);
  }
  return out;
}

/**
 * A monotonic ULID in lower case, as ulidx's `monotonicFactory` makes them: a
 * new millisecond gets 80 fresh random bits; within the same millisecond (or
 * when the clock goes back) the previous id's random part plus one, so ids
 * made in one process sort in the order they were made. Made directly in
 * lower case with the time part built once per millisecond: every AI request
 * makes five ids (work unit, plan, manifest, two events), and ulidx took
 * ~1 µs per id where this takes ~0.4 (docs/decisions/175).
 */
export function monotonicUlid(now = Date.now()): string {
  if (now > lastMs) {
    lastMs = now;
    timeChars = encodeUlidTime(now);
    for (let i = 0; i < 16; i++) randomDigits[i] = Math.floor(pooledRandom() * 32);
  } else {
    let i = 15;
    while (i >= 0 && randomDigits[i] === 31) randomDigits[i--] = 0;
    if (i < 0) throw new Error('ULID random part overflowed within one millisecond');
    randomDigits[i]!++;
  }
  let out = timeChars;
  for (let i = 0; i < 16; i++) out += ALPHABET[randomDigits[i]!]!;
  return out;
}

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${monotonicUlid()}`;
}

/** True when `id` is `<prefix>_` followed by a lowercase ULID. */
export function isId(id: string, prefix: IdPrefix): boolean {
  return new RegExp(`^${prefix}_[0-9a-hjkmnp-tv-z]{26}$`).test(id);
}
