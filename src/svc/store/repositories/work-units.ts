/** Work unit persistence. */
import { settleAiRecords } from './ai-record-journal.ts';
import type { Db, SqlValue } from '../db.ts';
import type { WorkUnitRecord, WorkUnitState } from '../../work-units/work-unit.ts';

interface Row {
  id: string;
  tenant: string;
  kind: string;
  logical_ref: string;
  requested_contract: string;
  state: string;
  metadata: string;
  payload_kind: string;
  payload_json: string | null;
  payload_bytes: Uint8Array | null;
  payload_size: number;
  payload_sha256: string | null;
  created_by: string;
  trace_id: string;
  last_plan_id: string | null;
  manifest_id: string | null;
  created_at: string;
  updated_at: string;
}

function fromRow(r: Row): WorkUnitRecord {
  return {
    id: r.id,
    tenant: r.tenant,
    kind: r.kind,
    logical_ref: r.logical_ref,
    requested_contract: r.requested_contract,
    state: r.state as WorkUnitState,
    metadata: JSON.parse(r.metadata) as Record<string, string>,
    payload:
      r.payload_kind === 'binary'
        ? { kind: 'binary', bytes: new Uint8Array(r.payload_bytes ?? new Uint8Array()) }
        : r.payload_kind === 'json'
          ? { kind: 'json', value: JSON.parse(r.payload_json ?? 'null') as Record<string, unknown> }
          : { kind: 'none' },
    payload_size: Number(r.payload_size),
    payload_sha256: r.payload_sha256,
    created_by: r.created_by,
    trace_id: r.trace_id,
    last_plan_id: r.last_plan_id,
    manifest_id: r.manifest_id,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

export interface WorkUnitListQuery {
  tenant?: string | undefined;
  kind?: string | undefined;
  state?: string | undefined;
  /** Created at or after (ISO UTC). */
  from?: string | undefined;
  /** Created before (ISO UTC). */
  to?: string | undefined;
  /** Ids strictly after this one (ids are time-ordered). */
  after?: string | undefined;
  limit: number;
}

export class WorkUnitRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async insert(wu: WorkUnitRecord): Promise<void> {
    await this.#db.run(
      `INSERT INTO work_units (id, tenant, kind, logical_ref, requested_contract, state, metadata, payload_kind, payload_json, payload_bytes,
        payload_size, payload_sha256, created_by, trace_id, last_plan_id, manifest_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)`,
      [
        wu.id, wu.tenant, wu.kind, wu.logical_ref, wu.requested_contract, wu.state, JSON.stringify(wu.metadata), wu.payload.kind,
        wu.payload.kind === 'json' ? JSON.stringify(wu.payload.value) : null,
        wu.payload.kind === 'binary' ? wu.payload.bytes : null,
        wu.payload_size, wu.payload_sha256, wu.created_by, wu.trace_id, wu.last_plan_id, wu.manifest_id, wu.created_at, wu.updated_at,
      ],
    );
  }

  async get(id: string): Promise<WorkUnitRecord | undefined> {
    await settleAiRecords(this.#db);
    const row = await this.#db.get<Row>('SELECT * FROM work_units WHERE id = $1', [id]);
    return row ? fromRow(row) : undefined;
  }

  /** One page in id order; the payload column is not read (list views carry only its size and digest). */
  async list(q: WorkUnitListQuery): Promise<WorkUnitRecord[]> {
    await settleAiRecords(this.#db);
    const params: SqlValue[] = [];
    const where: string[] = [];
    const add = (sql: (n: number) => string, v: SqlValue) => {
      params.push(v);
      where.push(sql(params.length));
    };
    if (q.tenant !== undefined) add((n) => `tenant = $${n}`, q.tenant);
    if (q.kind !== undefined) add((n) => `kind = $${n}`, q.kind);
    if (q.state !== undefined) add((n) => `state = $${n}`, q.state);
    if (q.from !== undefined) add((n) => `created_at >= $${n}`, q.from);
    if (q.to !== undefined) add((n) => `created_at < $${n}`, q.to);
    if (q.after !== undefined) add((n) => `id > $${n}`, q.after);
    params.push(q.limit);
    const rows = await this.#db.all<Row>(
      `SELECT id, tenant, kind, logical_ref, requested_contract, state, metadata, payload_kind, NULL AS payload_json, NULL AS payload_bytes,
         payload_size, payload_sha256, created_by, trace_id, last_plan_id, manifest_id, created_at, updated_at
       FROM work_units ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY id LIMIT $${params.length}`,
      params,
    );
    return rows.map(fromRow);
  }

  async update(id: string, fields: { state?: WorkUnitState; last_plan_id?: string; manifest_id?: string }): Promise<void> {
    await settleAiRecords(this.#db);
    const now = new Date().toISOString();
    await this.#db.run(
      `UPDATE work_units SET state = COALESCE($2, state), last_plan_id = COALESCE($3, last_plan_id), manifest_id = COALESCE($4, manifest_id), updated_at = $5 WHERE id = $1`,
      [id, fields.state ?? null, fields.last_plan_id ?? null, fields.manifest_id ?? null, now],
    );
  }
}
