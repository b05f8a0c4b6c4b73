/**
 * Bearer-token authentication for the protected routes. The service never
 * sees the raw token at rest: `ATTR_SERVICE_TOKEN_SHA256` holds its hex
 * SHA-256 digest, only the decoded digest is kept, and a presented token is
 * hashed and compared in constant time (src/core/secret-compare.ts).
 */
import { TokenDigestIndex, digestFromHex } from '../../core/secret-compare.ts';
import { TOKEN_DIGEST_ENV } from '../config/service-config.ts';

export { TOKEN_DIGEST_ENV };

export type BearerCheck = { ok: true } | { ok: false; reason: 'missing_header' | 'malformed_header' | 'unknown_token' | 'no_token_configured' };

export class BearerAuthenticator {
  readonly #index = new TokenDigestIndex<true>();
  /** Why no digest is configured, when none is (reported by readiness). */
  readonly problem: string | undefined;

  /** Reads the digest from `env[ATTR_SERVICE_TOKEN_SHA256]`; an absent or malformed value leaves every call unauthenticated. */
  constructor(env: Readonly<Record<string, string | undefined>>) {
    const hex = env[TOKEN_DIGEST_ENV]?.trim();
    if (!hex) {
      this.problem = `${TOKEN_DIGEST_ENV} is not set`;
      return;
    }
    try {
      this.#index.add(digestFromHex(hex), true);
      this.problem = undefined;
    } catch {
      this.problem = `${TOKEN_DIGEST_ENV} is not a 64-character hex SHA-256 digest`;
    }
  }

  get configured(): boolean {
    return this.#index.size > 0;
  }

  /** Checks an `Authorization` header value. */
  check(authorization: string | undefined): BearerCheck {
    if (!this.configured) return { ok: false, reason: 'no_token_configured' };
    if (authorization === undefined || authorization === '') return { ok: false, reason: 'missing_header' };
    const match = /^Bearer ([\x21-\x7e]{1,4096})$/i.exec(authorization);
    if (!match) return { ok: false, reason: 'malformed_header' };
    return this.#index.match(match[1]!) ? { ok: true } : { ok: false, reason: 'unknown_token' };
  }
}
