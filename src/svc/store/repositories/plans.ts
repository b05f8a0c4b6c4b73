/**
 * Persisted plans (the spec: "plans are stored locally so operators and tests can inspect them").
 *
 * A plan is stored once (docs/decisions/172): its `plan.created` ledger event carries the plan in its payload
 * (the spec requires it), so a row written with `bodyEventId` keeps only the columns readers filter on, with an
 * empty `body` and the event's id in `body_event_id`; readers take the plan from that event's `payload.plan`.
 * Rows written before (and rows whose event is not written with them) keep their own body.
 */
import { settleAiRecords } from './ai-record-journal.ts';
import type { Db } from '../db.ts';
import type { Plan } from '../../plans/plan.ts';

export interface PlanListQuery {
  tenant?: string | undefined;
  workUnitId?: string | undefined;
  after?: string | undefined;
  limit: number;
}

/** A row's own body, or the payload of the `plan.created` event that holds it. */
interface PlanRow {
  body: string;
  event_payload: string | null;
}

/**
 * Keys the AI gateway adds to the plan in its `plan.created` payload (the plan's actions as the gateway decided
 * them, and the route): not part of the stored plan (src/svc/ai/compose/svc-ai-recorder.ts).
 */
const EVENT_ONLY_KEYS = ['ai_actions', 'route'] as const;

const SELECT = 'SELECT p.body AS body, e.payload AS event_payload FROM plans p LEFT JOIN ledger_events e ON e.id = p.body_event_id';

function planOf(row: PlanRow): Plan {
  if (row.body !== '') return JSON.parse(row.body) as Plan;
  if (row.event_payload === null) throw new Error('plan row without a body and without its plan.created event');
  const plan = (JSON.parse(row.event_payload) as { plan: Record<string, unknown> }).plan;
  for (const key of EVENT_ONLY_KEYS) delete plan[key];
  return plan as unknown as Plan;
}

export class PlanRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * `bodyEventId`: the id of the `plan.created` event committed in the same transaction whose `payload.plan` is
   * this plan (plus the keys in EVENT_ONLY_KEYS); the row then stores no body of its own.
   */
  async insert(plan: Plan, createdBy: string, bodyEventId?: string): Promise<void> {
    await this.#db.run(
      `INSERT INTO plans (id, work_unit_id, tenant, contract, mode, risk, policy_bundle_id, trace_id, body, created_by, created_at, body_event_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [plan.plan_id, plan.work_unit_id, plan.tenant, plan.contract, plan.mode, plan.risk, plan.policy_bundle_id, plan.trace_id, bodyEventId === undefined ? JSON.stringify(plan) : '', createdBy, plan.created_at, bodyEventId ?? null],
    );
  }

  async get(id: string): Promise<Plan | undefined> {
    await settleAiRecords(this.#db);
    const row = await this.#db.get<PlanRow>(`${SELECT} WHERE p.id = $1`, [id]);
    return row ? planOf(row) : undefined;
  }

  async list(q: PlanListQuery): Promise<Plan[]> {
    await settleAiRecords(this.#db);
    const rows = await this.#db.all<PlanRow>(
      `${SELECT} WHERE ($1 = '' OR p.tenant = $1) AND ($2 = '' OR p.work_unit_id = $2) AND p.id > $3 ORDER BY p.id LIMIT $4`,
      [q.tenant ?? '', q.workUnitId ?? '', q.after ?? '', q.limit],
    );
    return rows.map(planOf);
  }
}
