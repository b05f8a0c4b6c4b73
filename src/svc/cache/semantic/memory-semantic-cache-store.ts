/** In-process semantic cache store, partitioned by tenant, domain and embedder. */
import type { SemanticCacheEntry, SemanticCacheStore, SemanticCalibration, SemanticPartition } from './semantic-cache-store.ts';

function partitionKey(p: SemanticPartition): string {
  return JSON.stringify([p.tenant, p.domain, p.embedder]);
}

export class MemorySemanticCacheStore implements SemanticCacheStore {
  readonly #partitions = new Map<string, SemanticCacheEntry[]>();
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

  async put(entry: SemanticCacheEntry): Promise<void> {
    const key = partitionKey(entry);
    const list = this.#partitions.get(key) ?? [];
    list.push(structuredClone(entry));
    if (list.length > this.#maxPerPartition) list.splice(0, list.length - this.#maxPerPartition);
    this.#partitions.set(key, list);
  }

  async clearAll(): Promise<number> {
    let removed = 0;
    for (const list of this.#partitions.values()) removed += list.length;
    this.#partitions.clear();
    return removed;
  }

  async clear(tenant: string, domain?: string): Promise<number> {
    let removed = 0;
    for (const [key, list] of this.#partitions) {
      const [t, d] = JSON.parse(key) as [string, string, string];
      if (t === tenant && (domain === undefined || d === domain)) {
        removed += list.length;
        this.#partitions.delete(key);
      }
    }
    return removed;
  }
}
