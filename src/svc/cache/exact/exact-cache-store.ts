/**
 * Storage port of the exact cache. Implementations: in memory (tests,
 * benchmarks, single-process dev) and the SQL repository
 * (src/svc/store/repositories/cache-entries.ts).
 *
 * Every call names the tenant: a key lives in its tenant's namespace, so the
 * same `ck_` key stored by two tenants is two independent entries, and no
 * call can reach, claim or reveal another tenant's entry (issue 10, defect 11).
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
  get(tenant: string, key: string): Promise<ExactCacheEntry | undefined>;
  /** Inserts or replaces the entry `(entry.tenant, entry.key)`. */
  put(entry: ExactCacheEntry): Promise<void>;
  delete(tenant: string, key: string): Promise<void>;
}
