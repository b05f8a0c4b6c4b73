/** Approval records (SQLite and PostgreSQL). Tokens are never stored; only the record they are checked against. */
import type { ApprovalRecord } from '../../approvals/approval-record.ts';
import type { ApprovalListQuery, ApprovalRepository } from '../../approvals/approval-repository.ts';
import { type Db, fromBool, toBool } from '../db.ts';

interface Row {
  id: string;
  tenant: string;
  contract: string;
  bundle_id: string;
  bundle_hash: string;
  work_unit_id: string | null;
  single_use: number;
  actor: string;
  reason: string | null;
  created_at: string;
  expires_at: string;
  revoked_at: string | null;
  revoked_by: string | null;
  used_at: string | null;
}

function fromRow(r: Row): ApprovalRecord {
  return { ...r, single_use: toBool(r.single_use) };
}

const COLUMNS = 'id, tenant, contract, bundle_id, bundle_hash, work_unit_id, single_use, actor, reason, created_at, expires_at, revoked_at, revoked_by, used_at';

export class SqlApprovalRepository implements ApprovalRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async insert(a: ApprovalRecord): Promise<void> {
    await this.#db.run(
      `INSERT INTO approvals (${COLUMNS}) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [a.id, a.tenant, a.contract, a.bundle_id, a.bundle_hash, a.work_unit_id, fromBool(a.single_use), a.actor, a.reason, a.created_at, a.expires_at, a.revoked_at, a.revoked_by, a.used_at],
    );
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    const row = await this.#db.get<Row>(`SELECT ${COLUMNS} FROM approvals WHERE id = $1`, [id]);
    return row ? fromRow(row) : undefined;
  }

  async list(q: ApprovalListQuery): Promise<ApprovalRecord[]> {
    const rows = await this.#db.all<Row>(
      `SELECT ${COLUMNS} FROM approvals WHERE ($1 = '' OR tenant = $1) AND id > $2 ORDER BY id LIMIT $3`,
      [q.tenant ?? '', q.after ?? '', q.limit],
    );
    return rows.map(fromRow);
  }

  async revoke(id: string, actor: string, at: string): Promise<boolean> {
    const r = await this.#db.run('UPDATE approvals SET revoked_at = $1, revoked_by = $2 WHERE id = $3 AND revoked_at IS NULL', [at, actor, id]);
    return r.changes === 1;
  }

  /** The conditional UPDATE is the atomic test-and-set: of two concurrent presentations exactly one changes the row. */
  async consume(id: string, at: string): Promise<boolean> {
    const r = await this.#db.run('UPDATE approvals SET used_at = $1 WHERE id = $2 AND used_at IS NULL', [at, id]);
    return r.changes === 1;
  }
}
