/**
 * Where approval records are kept. The SQL implementation lives in
 * src/svc/store/repositories/approvals.ts (SQLite and PostgreSQL); the
 * domain depends on this interface only.
 */
import type { ApprovalRecord } from './approval-record.ts';

export interface ApprovalListQuery {
  tenant?: string;
  limit: number;
  /** Exclusive cursor: ids sort by creation time. */
  after?: string;
}

export interface ApprovalRepository {
  insert(record: ApprovalRecord): Promise<void>;
  get(id: string): Promise<ApprovalRecord | undefined>;
  list(query: ApprovalListQuery): Promise<ApprovalRecord[]>;
  /** Marks revoked; false when already revoked or absent. */
  revoke(id: string, actor: string, at: string): Promise<boolean>;
  /** Atomically marks a single-use approval used; false when it was already used (a replay). */
  consume(id: string, at: string): Promise<boolean>;
}
