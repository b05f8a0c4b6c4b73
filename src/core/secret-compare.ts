/**
 * Credential checks. Only SHA-256 digests of tokens are kept in memory; a
 * presented token is hashed and compared against every known digest with
 * `timingSafeEqual`, without an early exit, so timing reveals neither which
 * digest matched nor how much of it.
 */
import { hash, timingSafeEqual } from 'node:crypto';

export function tokenDigest(token: string): Buffer {
  // One-shot: no Hash object per request (every authenticated request hashes its token).
  return hash('sha256', token, 'buffer');
}

export function digestFromHex(hex: string): Buffer {
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) throw new TypeError('expected a 64-character hex SHA-256 digest');
  return Buffer.from(hex, 'hex');
}

/** A set of token digests, each mapped to a value (a principal, usually). */
export class TokenDigestIndex<T> {
  readonly #entries: Array<{ digest: Buffer; value: T }> = [];

  add(digest: Buffer, value: T): void {
    this.#entries.push({ digest, value });
  }

  get size(): number {
    return this.#entries.length;
  }

  /** The value whose digest equals SHA-256(token), checked in constant time per entry. */
  match(token: string): T | undefined {
    const presented = tokenDigest(token);
    let found: T | undefined;
    for (const entry of this.#entries) {
      // Every entry is compared; the result is only recorded, never used to stop early.
      if (timingSafeEqual(entry.digest, presented) && found === undefined) found = entry.value;
    }
    return found;
  }
}
