/**
 * The SQL cache stores as the composed gateway uses them: reads go straight
 * to the repositories; writes join the ledger's group commit
 * (`LedgerAppender.commit`), so the cache entry of an answer commits in the
 * same transaction as the request's work unit, plan, manifest and ledger
 * events — one commit per batch of concurrent requests instead of one per
 * write.
 */
import type { ExactCacheEntry, ExactCacheStore } from '../../cache/exact/exact-cache-store.ts';
import type { SemanticCacheEntry, SemanticCacheStore, SemanticCalibration, SemanticPartition } from '../../cache/semantic/semantic-cache-store.ts';
import type { LedgerAppender } from '../../ledger/appender.ts';
import { CacheEntryRepository } from '../../store/repositories/cache-entries.ts';
import { SemanticCacheRepository } from '../../store/repositories/semantic-cache.ts';

export class GroupCommittedExactCacheStore implements ExactCacheStore {
  readonly #repo: CacheEntryRepository;
  readonly #ledger: LedgerAppender;

  constructor(repo: CacheEntryRepository, ledger: LedgerAppender) {
    this.#repo = repo;
    this.#ledger = ledger;
  }

  get(tenant: string, key: string): Promise<ExactCacheEntry | undefined> {
    return this.#repo.get(tenant, key);
  }

  async put(entry: ExactCacheEntry): Promise<void> {
    await this.#ledger.commit({ write: (tx) => new CacheEntryRepository(tx).put(entry), events: [] });
  }

  delete(tenant: string, key: string): Promise<void> {
    return this.#repo.delete(tenant, key);
  }
}

export class GroupCommittedSemanticCacheStore implements SemanticCacheStore {
  readonly #repo: SemanticCacheRepository;
  readonly #ledger: LedgerAppender;

  constructor(repo: SemanticCacheRepository, ledger: LedgerAppender) {
    this.#repo = repo;
    this.#ledger = ledger;
  }

  candidates(partition: SemanticPartition, nowIso: string, limit: number): Promise<SemanticCacheEntry[]> {
    return this.#repo.candidates(partition, nowIso, limit);
  }

  candidatesByKey(partition: SemanticPartition, lookupKey: string, nowIso: string, limit: number): Promise<SemanticCacheEntry[]> {
    return this.#repo.candidatesByKey(partition, lookupKey, nowIso, limit);
  }

  candidatesByKeys(partition: SemanticPartition, lookupKeys: readonly string[], nowIso: string, limit: number): Promise<SemanticCacheEntry[]> {
    return this.#repo.candidatesByKeys(partition, lookupKeys, nowIso, limit);
  }

  async put(entry: SemanticCacheEntry): Promise<void> {
    await this.#ledger.commit({ write: (tx) => new SemanticCacheRepository(tx).put(entry), events: [] });
  }

  calibration(partition: SemanticPartition): Promise<SemanticCalibration | undefined> {
    return this.#repo.calibration(partition);
  }

  async putCalibration(calibration: SemanticCalibration): Promise<void> {
    await this.#ledger.commit({ write: (tx) => new SemanticCacheRepository(tx).putCalibration(calibration), events: [] });
  }

  clear(tenant: string, domain?: string): Promise<number> {
    return this.#repo.clear(tenant, domain);
  }

  clearAll(): Promise<number> {
    return this.#repo.clearAll();
  }
}
