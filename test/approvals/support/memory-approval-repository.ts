/** An in-memory `ApprovalRepository` for domain tests; the service uses the SQL one. */
import type { ApprovalRecord } from '../../../src/svc/approvals/approval-record.ts';
import type { ApprovalListQuery, ApprovalRepository } from '../../../src/svc/approvals/approval-repository.ts';

export class MemoryApprovalRepository implements ApprovalRepository {
  readonly rows = new Map<string, ApprovalRecord>();

  async insert(record: ApprovalRecord): Promise<void> {
    this.rows.set(record.id, { ...record });
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    const r = this.rows.get(id);
    return r ? { ...r } : undefined;
  }

  async list(q: ApprovalListQuery): Promise<ApprovalRecord[]> {
    return [...this.rows.values()]
      .filter((r) => (q.tenant === undefined || r.tenant === q.tenant) && (q.after === undefined || r.id > q.after))
      .sort((a, b) => (a.id < b.id ? -1 : 1))
      .slice(0, q.limit);
  }

  async revoke(id: string, actor: string, at: string): Promise<boolean> {
    const r = this.rows.get(id);
    if (!r || r.revoked_at !== null) return false;
    r.revoked_at = at;
    r.revoked_by = actor;
    return true;
  }

  async consume(id: string, at: string): Promise<boolean> {
    const r = this.rows.get(id);
    if (!r || r.used_at !== null) return false;
    r.used_at = at;
    return true;
  }
}
