/**
 * Storage port of the exact cache. Implementations: in memory (tests,
 * benchmarks, single-process dev) and the SQL repository
 * (src/svc/store/repositories/cache-entries.ts).
 */

export interface ExactCacheEntry {
  key: string;
  tenant: string;
  value: unknown;
  /** The verification the server ran before storing (and re-runs on lookup). */
  verification: import('../verifiers/verification-spec.ts').VerificationSpec;
  /** `name@version` of the verifier that passed. */
  verifier: string;
  /** Where the entry came from: the AI gateway or a client store request. */
  origin: 'gateway' | 'client';
  created_at: string;
  expires_at: string;
}

export interface ExactCacheStore {
  get(key: string): Promise<ExactCacheEntry | undefined>;
  /**
   * Inserts or replaces the entry. Returns false, storing nothing, when the
   * key already belongs to another tenant: keys are never taken over.
   */
  put(entry: ExactCacheEntry): Promise<boolean>;
  delete(key: string): Promise<void>;
}
