/**
 * Dedupe scopes. Chunks are only shared inside one scope. The default scope
 * is the tenant: cross-tenant dedupe would let one tenant learn whether
 * another holds a given file (upload it, watch `bytes_stored` drop to zero).
 * `global` trades that isolation for more dedupe and must be chosen
 * explicitly (config `chunk_store.dedupe_scope`; docs/decisions/021-dedupe-scope.md).
 */
import { createHash } from 'node:crypto';

export type DedupeScopeSetting = 'tenant' | 'global';

/**
 * A scope name as used by chunk stores: `global`, `t-` + 32 hex digits of
 * the SHA-256 of the tenant name, or `o-` + 32 hex digits for a private scope. Hashing keeps tenant names (which may hold
 * any characters) out of file paths and object keys.
 */
export type ChunkScope = string & { readonly __brand: 'ChunkScope' };

export const CHUNK_SCOPE_PATTERN = /^(global|[to]-[0-9a-f]{32})$/;

export function chunkScopeFor(setting: DedupeScopeSetting, tenant: string): ChunkScope {
  if (setting === 'global') return 'global' as ChunkScope;
  if (tenant.length === 0) throw new TypeError('a tenant-scoped chunk scope needs a tenant');
  return `t-${createHash('sha256').update(tenant, 'utf8').digest('hex').slice(0, 32)}` as ChunkScope;
}

/**
 * A scope shared with nothing else (`o-` + hash of `owner`), for an object
 * whose plan does not allow dedupe: its chunks are stored apart, so no other
 * object can ever reference them.
 */
export function privateChunkScope(owner: string): ChunkScope {
  return `o-${createHash('sha256').update(`private:${owner}`, 'utf8').digest('hex').slice(0, 32)}` as ChunkScope;
}

/** Checks a scope read from outside (a manifest, an export) before it names a directory. */
export function parseChunkScope(value: string): ChunkScope {
  if (!CHUNK_SCOPE_PATTERN.test(value)) throw new TypeError(`not a chunk scope: ${JSON.stringify(value)}`);
  return value as ChunkScope;
}
