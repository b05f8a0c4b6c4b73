/**
 * In-process exact cache store: a Map bounded by entry count with
 * least-recently-used eviction. Used by tests, benchmarks and as the hot
 * front of nothing else; durable storage is the SQL repository.
 */
import type { ExactCacheEntry, ExactCacheStore } from './exact-cache-store.ts';

export class MemoryExactCacheStore implements ExactCacheStore {
  readonly #entries = new Map<string, ExactCacheEntry>();
  readonly #maxEntries: number;

  constructor(maxEntries = 100_000) {
    this.#maxEntries = maxEntries;
  }

  async get(key: string): Promise<ExactCacheEntry | undefined> {
    const entry = this.#entries.get(key);
    if (entry) {
      this.#entries.delete(key);
      this.#entries.set(key, entry);
    }
    return entry;
  }

  async put(entry: ExactCacheEntry): Promise<boolean> {
    const existing = this.#entries.get(entry.key);
    if (existing && existing.tenant !== entry.tenant) return false;
    this.#entries.delete(entry.key);
    this.#entries.set(entry.key, structuredClone(entry));
    if (this.#entries.size > this.#maxEntries) {
      const oldest = this.#entries.keys().next().value;
      if (oldest !== undefined) this.#entries.delete(oldest);
    }
    return true;
  }

  async delete(key: string): Promise<void> {
    this.#entries.delete(key);
  }
}
