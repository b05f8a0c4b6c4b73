/**
 * `sha256@1`: the value's digest equals the declared one. A string value is
 * hashed as its UTF-8 bytes; anything else as its canonical JSON (RFC 8785),
 * so the digest does not depend on key order or white space.
 */
import { canonicalSha256, sha256Hex } from '../../../core/hashing.ts';
import type { Verifier } from './verifier.ts';

export function valueDigest(value: unknown): string {
  return typeof value === 'string' ? sha256Hex(value) : canonicalSha256(value);
}

export const sha256Verifier: Verifier<{ type: 'sha256'; sha256: string }> = {
  name: 'sha256',
  version: 1,
  check(value, spec) {
    return valueDigest(value) === spec.sha256 ? { passed: true } : { passed: false, reason: 'digest mismatch' };
  },
};
