/** Persisted plans (the spec: "plans are stored locally so operators and tests can inspect them"). */
import { settleAiRecords } from './ai-record-journal.ts';
import type { Db } from '../db.ts';
import type { Plan } from '../../plans/plan.ts';

export interface PlanListQuery {
  tenant?: string | undefined;
  workUnitId?: string | undefined;
  after?: string | undefined;
  limit: number;
}

export class PlanRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async insert(plan: Plan, createdBy: string): Promise<void> {
    await this.#db.run(
      `INSERT INTO plans (id, work_unit_id, tenant, contract, mode, risk, policy_bundle_id, trace_id, body, created_by, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [plan.plan_id, plan.work_unit_id, plan.tenant, plan.contract, plan.mode, plan.risk, plan.policy_bundle_id, plan.trace_id, JSON.stringify(plan), createdBy, plan.created_at],
    );
  }

  async get(id: string): Promise<Plan | undefined> {
    await settleAiRecords(this.#db);
    const row = await this.#db.get<{ body: string }>('SELECT body FROM plans WHERE id = $1', [id]);
    return row ? (JSON.parse(row.body) as Plan) : undefined;
  }

  async list(q: PlanListQuery): Promise<Plan[]> {
    await settleAiRecords(this.#db);
    const rows = await this.#db.all<{ body: string }>(
      `SELECT body FROM plans WHERE ($1 = '' OR tenant = $1) AND ($2 = '' OR work_unit_id = $2) AND id > $3 ORDER BY id LIMIT $4`,
      [q.tenant ?? '', q.workUnitId ?? '', q.after ?? '', q.limit],
    );
    return rows.map((r) => JSON.parse(r.body) as Plan);
  }
}
