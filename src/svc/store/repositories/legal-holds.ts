/** Legal hold rows (src/svc/legal-holds). Active holds have no `released_at`. */
import type { Db } from '../db.ts';
import type { LegalHold } from '../../legal-holds/legal-hold.ts';

export class LegalHoldRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async insert(h: LegalHold): Promise<void> {
    await this.#db.run(
      'INSERT INTO legal_holds (id, tenant, scope, target, reason, placed_by, placed_at, released_by, released_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)',
      [h.id, h.tenant, h.scope, h.target, h.reason, h.placed_by, h.placed_at, h.released_by, h.released_at],
    );
  }

  get(id: string): Promise<LegalHold | undefined> {
    return this.#db.get<LegalHold>('SELECT * FROM legal_holds WHERE id = $1', [id]);
  }

  /** Active holds of a tenant (or of every tenant). */
  active(tenant: string | undefined): Promise<LegalHold[]> {
    return tenant === undefined
      ? this.#db.all<LegalHold>('SELECT * FROM legal_holds WHERE released_at IS NULL ORDER BY id')
      : this.#db.all<LegalHold>('SELECT * FROM legal_holds WHERE tenant = $1 AND released_at IS NULL ORDER BY id', [tenant]);
  }

  async release(id: string, by: string, at: string): Promise<boolean> {
    const r = await this.#db.run('UPDATE legal_holds SET released_by = $1, released_at = $2 WHERE id = $3 AND released_at IS NULL', [by, at, id]);
    return r.changes === 1;
  }
}
