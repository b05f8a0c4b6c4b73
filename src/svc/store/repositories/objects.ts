/**
 * Object gateway pointers: which manifest is the current version of
 * `(tenant, bucket, key)`. Overwrites move the pointer (older manifests stay,
 * active, reachable by id); a delete tombstones the pointer and its manifest.
 */
import type { Db, SqlValue } from '../db.ts';

export interface ObjectRow {
  tenant: string;
  bucket: string;
  object_key: string;
  manifest_id: string;
  work_unit_id: string;
  state: 'active' | 'tombstoned';
  size: number;
  sha256: string;
  content_type: string | null;
  updated_at: string;
}

export interface ObjectListFilter {
  tenant: string;
  bucket: string;
  prefix: string;
  /** Keys strictly after this one (continuation). */
  afterKey: string;
  includeTombstoned: boolean;
  limit: number;
}

function fromRow(r: ObjectRow): ObjectRow {
  return { ...r, size: Number(r.size) };
}

/** LIKE pattern matching keys that start with `prefix` (wildcards escaped). */
function prefixPattern(prefix: string): string {
  return `${prefix.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

export class ObjectRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async upsert(o: ObjectRow): Promise<void> {
    await this.#db.run(
      `INSERT INTO objects (tenant, bucket, object_key, manifest_id, work_unit_id, state, size, sha256, content_type, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
       ON CONFLICT (tenant, bucket, object_key) DO UPDATE SET manifest_id = excluded.manifest_id, work_unit_id = excluded.work_unit_id,
         state = excluded.state, size = excluded.size, sha256 = excluded.sha256, content_type = excluded.content_type, updated_at = excluded.updated_at`,
      [o.tenant, o.bucket, o.object_key, o.manifest_id, o.work_unit_id, o.state, o.size, o.sha256, o.content_type, o.updated_at],
    );
  }

  async get(tenant: string, bucket: string, key: string): Promise<ObjectRow | undefined> {
    const row = await this.#db.get<ObjectRow>('SELECT * FROM objects WHERE tenant = $1 AND bucket = $2 AND object_key = $3', [tenant, bucket, key]);
    return row ? fromRow(row) : undefined;
  }

  /** Tombstones the pointer if it still names `manifestId` (a concurrent overwrite wins). */
  async tombstone(tenant: string, bucket: string, key: string, manifestId: string): Promise<boolean> {
    const { changes } = await this.#db.run(
      `UPDATE objects SET state = 'tombstoned', updated_at = $5 WHERE tenant = $1 AND bucket = $2 AND object_key = $3 AND manifest_id = $4 AND state = 'active'`,
      [tenant, bucket, key, manifestId, new Date().toISOString()],
    );
    return changes > 0;
  }

  async list(f: ObjectListFilter): Promise<ObjectRow[]> {
    const params: SqlValue[] = [f.tenant, f.bucket, prefixPattern(f.prefix), f.afterKey, f.limit];
    const rows = await this.#db.all<ObjectRow>(
      `SELECT * FROM objects WHERE tenant = $1 AND bucket = $2 AND object_key LIKE $3 ESCAPE '\\' AND object_key > $4
       ${f.includeTombstoned ? '' : "AND state = 'active'"} ORDER BY object_key LIMIT $5`,
      params,
    );
    return rows.map(fromRow);
  }
}
