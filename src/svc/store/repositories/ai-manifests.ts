/**
 * Compute manifests of AI work units. Kept in their own table (the manifest
 * service lists and explores them next to byte-object manifests); the body
 * never holds prompt or answer text, only ids, figures and digests.
 */
import { settleAiRecords } from './ai-record-journal.ts';
import type { AiComputeManifest } from '../../ai/gateway/ports.ts';
import { fromBool } from '../db.ts';
import type { Db, SqlValue } from '../db.ts';

export interface AiManifestListFilter {
  tenant?: string | undefined;
  /** The logical reference of the manifest's work unit. */
  logicalRef?: string | undefined;
  after?: string | undefined;
  limit: number;
  /** Newest first; `after` then means "older than". */
  newestFirst?: boolean;
}

/** A compute manifest with the logical reference of its work unit (null when the work unit row is gone). */
export interface AiManifestListRow {
  manifest: AiComputeManifest;
  logical_ref: string | null;
}

export interface AiManifestAggregateRow {
  kind: string;
  contract: string;
  count: number;
}

export class AiManifestRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async insert(m: AiComputeManifest): Promise<void> {
    await this.#db.run(
      `INSERT INTO ai_manifests (id, work_unit_id, tenant, kind, status, cache, route, fallback_used, trace_id, body, created_at, contract)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [m.manifest_id, m.work_unit_id, m.tenant, m.kind, m.status, m.cache, m.route, fromBool(m.result.fallback_used), m.trace_id, JSON.stringify(m), m.created_at, m.contract],
    );
  }

  async get(id: string): Promise<AiComputeManifest | undefined> {
    await settleAiRecords(this.#db);
    const row = await this.#db.get<{ body: string }>('SELECT body FROM ai_manifests WHERE id = $1', [id]);
    return row ? (JSON.parse(row.body) as AiComputeManifest) : undefined;
  }

  async byWorkUnit(workUnitId: string): Promise<AiComputeManifest | undefined> {
    await settleAiRecords(this.#db);
    const row = await this.#db.get<{ body: string }>('SELECT body FROM ai_manifests WHERE work_unit_id = $1', [workUnitId]);
    return row ? (JSON.parse(row.body) as AiComputeManifest) : undefined;
  }

  /** One page in id order (ids are time-ordered), with each manifest's work-unit logical reference. */
  async list(f: AiManifestListFilter): Promise<AiManifestListRow[]> {
    await settleAiRecords(this.#db);
    const params: SqlValue[] = [];
    const where: string[] = [];
    const add = (sql: (n: number) => string, v: SqlValue) => {
      params.push(v);
      where.push(sql(params.length));
    };
    if (f.tenant !== undefined) add((n) => `m.tenant = $${n}`, f.tenant);
    if (f.logicalRef !== undefined) add((n) => `w.logical_ref = $${n}`, f.logicalRef);
    if (f.after !== undefined) add((n) => (f.newestFirst ? `m.id < $${n}` : `m.id > $${n}`), f.after);
    params.push(f.limit);
    const rows = await this.#db.all<{ body: string; logical_ref: string | null }>(
      `SELECT m.body, w.logical_ref FROM ai_manifests m LEFT JOIN work_units w ON w.id = m.work_unit_id
       ${where.length > 0 ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY m.id ${f.newestFirst ? 'DESC' : 'ASC'} LIMIT $${params.length}`,
      params,
    );
    return rows.map((r) => ({ manifest: JSON.parse(r.body) as AiComputeManifest, logical_ref: r.logical_ref }));
  }

  /** Counts by AI kind and contract (compute manifests store no bytes). */
  async aggregates(tenant: string | undefined): Promise<AiManifestAggregateRow[]> {
    await settleAiRecords(this.#db);
    const rows = await this.#db.all<AiManifestAggregateRow>(
      `SELECT kind, contract, COUNT(*) AS count FROM ai_manifests WHERE ($1 = '' OR tenant = $1) GROUP BY kind, contract ORDER BY kind, contract`,
      [tenant ?? ''],
    );
    return rows.map((r) => ({ ...r, count: Number(r.count) }));
  }
}
