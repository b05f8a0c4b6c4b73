/** In-process semantic cache store, partitioned by tenant, domain and embedder. */
import type { SemanticCacheEntry, SemanticCacheStore, SemanticCalibration, SemanticPartition } from './semantic-cache-store.ts';

function partitionKey(p: SemanticPartition): string {
  return JSON.stringify([p.tenant, p.domain, p.embedder]);
}

export class MemorySemanticCacheStore implements SemanticCacheStore {
  readonly #partitions = new Map<string, SemanticCacheEntry[]>();
  /** partition → lookup key → entries, oldest first (the same objects as in #partitions). */
  readonly #byKey = new Map<string, Map<string, SemanticCacheEntry[]>>();
  readonly #maxPerPartition: number;

  constructor(maxPerPartition = 10_000) {
    this.#maxPerPartition = maxPerPartition;
  }

  readonly #calibrations = new Map<string, SemanticCalibration>();

  async calibration(partition: SemanticPartition): Promise<SemanticCalibration | undefined> {
    return this.#calibrations.get(partitionKey(partition));
  }

  async putCalibration(c: SemanticCalibration): Promise<void> {
    this.#calibrations.set(partitionKey({ tenant: c.tenant, domain: c.domain, embedder: c.embedder }), c);
  }

  async candidates(partition: SemanticPartition, nowIso: string, limit: number): Promise<SemanticCacheEntry[]> {
    const entries = this.#partitions.get(partitionKey(partition)) ?? [];
    const out: SemanticCacheEntry[] = [];
    for (let i = entries.length - 1; i >= 0 && out.length < limit; i--) {
      const e = entries[i]!;
      if (e.expires_at > nowIso) out.push(e);
    }
    return out;
  }

  async candidatesByKeys(partition: SemanticPartition, lookupKeys: readonly string[], nowIso: string, limit: number): Promise<SemanticCacheEntry[]> {
    const byKey = this.#byKey.get(partitionKey(partition));
    if (byKey === undefined) return [];
    const all: SemanticCacheEntry[] = [];
    for (const key of new Set(lookupKeys)) for (const e of byKey.get(key) ?? []) if (e.expires_at > nowIso) all.push(e);
    // Newest first as the SQL stores order them: created_at, then id.
    all.sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? 1 : -1) : a.created_at < b.created_at ? 1 : -1));
    return all.slice(0, limit);
  }

  async candidatesByKey(partition: SemanticPartition, lookupKey: string, nowIso: string, limit: number): Promise<SemanticCacheEntry[]> {
    const entries = this.#byKey.get(partitionKey(partition))?.get(lookupKey) ?? [];
    const out: SemanticCacheEntry[] = [];
    for (let i = entries.length - 1; i >= 0 && out.length < limit; i--) {
      const e = entries[i]!;
      if (e.expires_at > nowIso) out.push(e);
    }
    return out;
  }

  async put(entry: SemanticCacheEntry): Promise<void> {
    const key = partitionKey(entry);
    const list = this.#partitions.get(key) ?? [];
    const stored = structuredClone(entry);
    list.push(stored);
    if (list.length > this.#maxPerPartition) for (const evicted of list.splice(0, list.length - this.#maxPerPartition)) this.#unindex(key, evicted);
    this.#partitions.set(key, list);
    if (stored.lookup_key !== null) {
      const index = this.#byKey.get(key) ?? new Map<string, SemanticCacheEntry[]>();
      const same = index.get(stored.lookup_key);
      if (same) same.push(stored);
      else index.set(stored.lookup_key, [stored]);
      this.#byKey.set(key, index);
    }
  }

  #unindex(partition: string, entry: SemanticCacheEntry): void {
    if (entry.lookup_key === null) return;
    const index = this.#byKey.get(partition);
    const left = (index?.get(entry.lookup_key) ?? []).filter((e) => e !== entry);
    if (left.length > 0) index!.set(entry.lookup_key, left);
    else index?.delete(entry.lookup_key);
  }

  async clearAll(): Promise<number> {
    let removed = 0;
    for (const list of this.#partitions.values()) removed += list.length;
    this.#partitions.clear();
    this.#byKey.clear();
    return removed;
  }

  async clear(tenant: string, domain?: string): Promise<number> {
    let removed = 0;
    for (const [key, list] of this.#partitions) {
      const [t, d] = JSON.parse(key) as [string, string, string];
      if (t === tenant && (domain === undefined || d === domain)) {
        removed += list.length;
        this.#partitions.delete(key);
        this.#byKey.delete(key);
      }
    }
    return removed;
  }
}
