/**
 * Storage port of the semantic cache. Every read and write names the tenant
 * and the domain: the index is partitioned by them, so a query can only ever
 * see candidates of its own tenant. Implementations: in memory and the SQL
 * repository (src/svc/store/repositories/semantic-cache.ts).
 */
import type { VerificationSpec } from '../verifiers/verification-spec.ts';

export interface SemanticCacheEntry {
  id: string;
  tenant: string;
  domain: string;
  /** Id of the embedder that produced `embedding`. */
  embedder: string;
  /** Normalised query text, when the entry was stored from text (the alignment needs it). */
  normalised_query: string | null;
  /** Digest of the query's content-word stems, numbers and symbols (query-tokens.ts lookupKeyOf); null without text. */
  lookup_key: string | null;
  embedding: number[];
  /** Sorted, de-duplicated. */
  source_fingerprints: string[];
  policy_id: string;
  value: unknown;
  verification: VerificationSpec;
  verifier: string;
  created_at: string;
  expires_at: string;
}

export interface SemanticPartition {
  tenant: string;
  domain: string;
  embedder: string;
}

/** A domain's calibrated operating point (docs/semantic-cache.md, "Calibration"). */
export interface SemanticCalibration {
  id: string;
  tenant: string;
  domain: string;
  embedder: string;
  threshold: number;
  max_false_accept: number;
  false_accept_rate: number;
  hit_rate: number;
  negatives: number;
  positives: number;
  actor: string;
  created_at: string;
}

export interface SemanticCacheStore {
  /** The calibration in force for a partition, if any. */
  calibration(partition: SemanticPartition): Promise<SemanticCalibration | undefined>;
  /** Replaces the partition's calibration. */
  putCalibration(calibration: SemanticCalibration): Promise<void>;
  /** Unexpired entries of one partition, newest first, at most `limit`. */
  candidates(partition: SemanticPartition, nowIso: string, limit: number): Promise<SemanticCacheEntry[]>;
  /** Unexpired entries of one partition with this lookup key, however old, newest first, at most `limit`. */
  candidatesByKey(partition: SemanticPartition, lookupKey: string, nowIso: string, limit: number): Promise<SemanticCacheEntry[]>;
  /**
   * Unexpired entries of one partition with any of these lookup keys, newest first, at most `limit` in all: the keys
   * of a query's synonym variants, in one read (decision 187).
   */
  candidatesByKeys(partition: SemanticPartition, lookupKeys: readonly string[], nowIso: string, limit: number): Promise<SemanticCacheEntry[]>;
  put(entry: SemanticCacheEntry): Promise<void>;
  /** Deletes the tenant's entries (all domains when `domain` is absent); returns how many. */
  clear(tenant: string, domain?: string): Promise<number>;
  /** Deletes every tenant's entries (the operator's rollback switch); returns how many. */
  clearAll(): Promise<number>;
}
