/**
 * In-process exact cache store: a Map bounded by entry count with
 * least-recently-used eviction. Used by tests, benchmarks and as the hot
 * front of nothing else; durable storage is the SQL repository.
 */
import type { ExactCacheEntry, ExactCacheStore } from './exact-cache-store.ts';

/** Map key: tenant and cache key (a NUL cannot occur in either). */
function slot(tenant: string, key: string): string {
  return `${tenant}\u0000${key}`;
}

export class MemoryExactCacheStore implements ExactCacheStore {
  readonly #entries = new Map<string, ExactCacheEntry>();
  readonly #maxEntries: number;

  constructor(maxEntries = 100_000) {
    this.#maxEntries = maxEntries;
  }

  async get(tenant: string, key: string): Promise<ExactCacheEntry | undefined> {
    const at = slot(tenant, key);
    const entry = this.#entries.get(at);
    if (entry) {
      this.#entries.delete(at);
      this.#entries.set(at, entry);
    }
    return entry;
  }

  async put(entry: ExactCacheEntry): Promise<void> {
    const at = slot(entry.tenant, entry.key);
    this.#entries.delete(at);
    this.#entries.set(at, structuredClone(entry));
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
  }

  async delete(tenant: string, key: string): Promise<void> {
    this.#entries.delete(slot(tenant, key));
  }
}
