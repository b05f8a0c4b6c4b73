/**
 * Exact cache keys: `ck_` + hex SHA-256 over the canonical JSON (RFC 8785) of
 * `{ tenant, route, model, request }`. The tenant is inside the hash, so two
 * tenants never share a key even for byte-identical requests, and the whole
 * output-affecting request (system prompt, history, sampling, tools, …) is
 * inside it too, so a key matches only a request that would produce the same
 * answer.
 */
import { canonicalSha256 } from '../../../core/hashing.ts';

export const CACHE_KEY_PATTERN = '^ck_[0-9a-f]{64}$';
const CACHE_KEY_RE = new RegExp(CACHE_KEY_PATTERN);

export interface ExactKeyInput {
  tenant: string;
  /** The API route, e.g. `chat.completions`, `completions`, `embeddings`. */
  route: string;
  /** The model the request resolves to (after `auto` routing). */
  model: string;
  /** Every request field that changes the output. */
  request: Record<string, unknown>;
}

export function exactCacheKey(input: ExactKeyInput): string {
  return `ck_${canonicalSha256({ v: 1, tenant: input.tenant, route: input.route, model: input.model, request: input.request })}`;
}

export function isCacheKey(value: string): boolean {
  return CACHE_KEY_RE.test(value);
}
