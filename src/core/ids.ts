/**
 * Identifiers: `<prefix>_<ULID>`. ULIDs sort by creation time (48-bit ms
 * timestamp) and carry 80 random bits, so ids are globally unique and
 * `ORDER BY id` is creation order — which pagination relies on.
 */
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
  trace: 'tr',
} as const;

export type IdPrefix = (typeof ID_PREFIXES)[keyof typeof ID_PREFIXES];

const ulid = monotonicFactory();

export function newId(prefix: IdPrefix): string {
  return `${prefix}_${ulid().toLowerCase()}`;
}

/** True when `id` is `<prefix>_` followed by a lowercase ULID. */
export function isId(id: string, prefix: IdPrefix): boolean {
  return new RegExp(`^${prefix}_[0-9a-hjkmnp-tv-z]{26}$`).test(id);
}
