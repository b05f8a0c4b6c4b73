/** Exact cache entries (the SQL `ExactCacheStore`). The primary key is (tenant, key): every tenant has its own key space. */
import type { ExactCacheEntry, ExactCacheStore } from '../../cache/exact/exact-cache-store.ts';
import type { Db } from '../db.ts';

interface Row {
  key: string;
  tenant: string;
  value: string;
  verification: string;
  verifier: string;
  origin: string;
  created_at: string;
  expires_at: string;
}

export class CacheEntryRepository implements ExactCacheStore {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async get(tenant: string, key: string): Promise<ExactCacheEntry | undefined> {
    const r = await this.#db.get<Row>('SELECT key, tenant, value, verification, verifier, origin, created_at, expires_at FROM cache_entries WHERE tenant = $1 AND key = $2', [tenant, key]);
    if (!r) return undefined;
    return {
      key: r.key,
      tenant: r.tenant,
      value: JSON.parse(r.value) as unknown,
      verification: JSON.parse(r.verification) as ExactCacheEntry['verification'],
      verifier: r.verifier,
      origin: r.origin as ExactCacheEntry['origin'],
      created_at: r.created_at,
      expires_at: r.expires_at,
    };
  }

  /** Entries in (tenant, key) order after the cursor, one tenant or all (restore tests scan them). */
  async scan(tenant: string | undefined, after: { tenant: string; key: string }, limit: number): Promise<ExactCacheEntry[]> {
    const rows = await this.#db.all<Row>(
      `SELECT key, tenant, value, verification, verifier, origin, created_at, expires_at FROM cache_entries
       WHERE ($1 = '' OR tenant = $1) AND (tenant > $2 OR (tenant = $2 AND key > $3)) ORDER BY tenant, key LIMIT $4`,
      [tenant ?? '', after.tenant, after.key, limit],
    );
    return rows.map((r) => ({
      key: r.key,
      tenant: r.tenant,
      value: JSON.parse(r.value) as unknown,
      verification: JSON.parse(r.verification) as ExactCacheEntry['verification'],
      verifier: r.verifier,
      origin: r.origin as ExactCacheEntry['origin'],
      created_at: r.created_at,
      expires_at: r.expires_at,
    }));
  }

  async put(e: ExactCacheEntry): Promise<void> {
    await this.#db.run(
      `INSERT INTO cache_entries (key, tenant, value, verification, verifier, origin, created_at, expires_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (tenant, key) DO UPDATE SET value = excluded.value, verification = excluded.verification, verifier = excluded.verifier,
         origin = excluded.origin, created_at = excluded.created_at, expires_at = excluded.expires_at`,
      [e.key, e.tenant, JSON.stringify(e.value), JSON.stringify(e.verification), e.verifier, e.origin, e.created_at, e.expires_at],
    );
  }

  async delete(tenant: string, key: string): Promise<void> {
    await this.#db.run('DELETE FROM cache_entries WHERE tenant = $1 AND key = $2', [tenant, key]);
  }

  /**
   * Deletes up to `limit` entries of any tenant that expired at or before `cutoffIso`, oldest expiry first, through
   * the expiry index (migration 123); returns how many went. The background purge calls it until a batch comes back
   * short (src/svc/cache/cache-purge.ts, decision 184). The outer `expires_at` test is not redundant: on PostgreSQL an
   * entry re-stored (upserted with a new expiry) between the inner read and the delete is re-checked against it and
   * kept, so a refreshed entry is never deleted.
   */
  async deleteExpired(cutoffIso: string, limit: number): Promise<number> {
    const { changes } = await this.#db.run(
      `DELETE FROM cache_entries WHERE expires_at <= $1
         AND (tenant, key) IN (SELECT tenant, key FROM cache_entries WHERE expires_at <= $1 ORDER BY expires_at LIMIT $2)`,
      [cutoffIso, limit],
    );
    return changes;
  }
}
