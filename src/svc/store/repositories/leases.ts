/**
 * Named leases (table `gc_leases`, migration 118; decision 116): one
 * process at a time runs a job that several processes on one database could
 * run — garbage collection (`gc`) and the cache purge (`cache_purge`,
 * decision 184). A lease names its holder and expires, so a dead holder's
 * job is taken over once its lease runs out.
 */
import type { Db } from '../db.ts';

export interface LeaseHolder {
  holder: string;
  expires_at: string;
}

export class LeaseRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * Takes (or renews) the named lease for `holder` until `until`, unless
   * another holder has it and it has not expired.
   */
  async takeLease(name: string, holder: string, now: string, until: string): Promise<boolean> {
    const rows = await this.#db.all<{ holder: string }>(
      `INSERT INTO gc_leases (name, holder, expires_at) VALUES ($1, $2, $3)
       ON CONFLICT (name) DO UPDATE SET holder = excluded.holder, expires_at = excluded.expires_at
       WHERE gc_leases.holder = excluded.holder OR gc_leases.expires_at < $4
       RETURNING holder`,
      [name, holder, until, now],
    );
    return rows.length === 1 && rows[0]!.holder === holder;
  }

  /** The holder of the named lease and until when, or undefined when nobody holds it. */
  async getLease(name: string): Promise<LeaseHolder | undefined> {
    const r = await this.#db.get<{ holder: string; expires_at: string }>('SELECT holder, expires_at FROM gc_leases WHERE name = $1', [name]);
    return r ? { holder: String(r.holder), expires_at: String(r.expires_at) } : undefined;
  }

  /** Hands the named lease from `from` (a holder known to be dead) to `to`; false when `from` no longer holds it. */
  async takeOverLease(name: string, from: string, to: string, until: string): Promise<boolean> {
    const { changes } = await this.#db.run('UPDATE gc_leases SET holder = $3, expires_at = $4 WHERE name = $1 AND holder = $2', [name, from, to, until]);
    return changes > 0;
  }

  async releaseLease(name: string, holder: string): Promise<void> {
    await this.#db.run('DELETE FROM gc_leases WHERE name = $1 AND holder = $2', [name, holder]);
  }
}
