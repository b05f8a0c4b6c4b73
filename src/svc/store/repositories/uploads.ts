/** Multipart uploads and their parts (the part bytes live on disk; see src/svc/objects/part-store.ts). */
import type { Db } from '../db.ts';

/** `completing` is held while a completion runs, so two completions (or a completion and an abort) cannot both proceed. */
export type UploadState = 'open' | 'completing' | 'completed' | 'aborted';

export interface UploadRow {
  id: string;
  tenant: string;
  bucket: string;
  object_key: string;
  state: UploadState;
  mode: string | null;
  content_type: string | null;
  created_by: string;
  trace_id: string;
  manifest_id: string | null;
  work_unit_id: string | null;
  created_at: string;
  updated_at: string;
}

export interface UploadPartRow {
  upload_id: string;
  part_number: number;
  size: number;
  sha256: string;
  created_at: string;
}

export class UploadRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async insert(u: UploadRow): Promise<void> {
    await this.#db.run(
      `INSERT INTO uploads (id, tenant, bucket, object_key, state, mode, content_type, created_by, trace_id, manifest_id, work_unit_id, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      [u.id, u.tenant, u.bucket, u.object_key, u.state, u.mode, u.content_type, u.created_by, u.trace_id, u.manifest_id, u.work_unit_id, u.created_at, u.updated_at],
    );
  }

  get(id: string): Promise<UploadRow | undefined> {
    return this.#db.get<UploadRow>('SELECT * FROM uploads WHERE id = $1', [id]);
  }

  /** Records a part; a re-uploaded part number replaces the earlier one. */
  async putPart(p: UploadPartRow): Promise<void> {
    await this.#db.run(
      `INSERT INTO upload_parts (upload_id, part_number, size, sha256, created_at) VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (upload_id, part_number) DO UPDATE SET size = excluded.size, sha256 = excluded.sha256, created_at = excluded.created_at`,
      [p.upload_id, p.part_number, p.size, p.sha256, p.created_at],
    );
  }

  async parts(uploadId: string): Promise<UploadPartRow[]> {
    const rows = await this.#db.all<UploadPartRow>('SELECT * FROM upload_parts WHERE upload_id = $1 ORDER BY part_number', [uploadId]);
    return rows.map((r) => ({ ...r, part_number: Number(r.part_number), size: Number(r.size) }));
  }

  async countParts(uploadId: string): Promise<number> {
    const row = await this.#db.get<{ n: number }>('SELECT COUNT(*) AS n FROM upload_parts WHERE upload_id = $1', [uploadId]);
    return Number(row?.n ?? 0);
  }

  /**
   * Open uploads with no activity (creation, state change or a part) since
   * `before` (ISO time), oldest first: the abandoned ones garbage collection expires.
   */
  async openSince(before: string, limit: number): Promise<UploadRow[]> {
    return this.#db.all<UploadRow>(
      `SELECT * FROM uploads u WHERE u.state = 'open' AND u.updated_at < $1
         AND NOT EXISTS (SELECT 1 FROM upload_parts p WHERE p.upload_id = u.id AND p.created_at >= $1)
       ORDER BY u.updated_at LIMIT $2`,
      [before, limit],
    );
  }

  /** Aborts an upload only if it is still open and idle since `before`; false when it moved on. */
  async abortIfIdle(id: string, before: string): Promise<boolean> {
    const { changes } = await this.#db.run(
      `UPDATE uploads SET state = 'aborted', updated_at = $3 WHERE id = $1 AND state = 'open' AND updated_at < $2
         AND NOT EXISTS (SELECT 1 FROM upload_parts p WHERE p.upload_id = uploads.id AND p.created_at >= $2)`,
      [id, before, new Date().toISOString()],
    );
    return changes > 0;
  }

  /** Moves an upload from `from` to `to`; false if it was not in `from` (another request got there first). */
  async transition(id: string, from: UploadState, to: UploadState, result: { manifest_id?: string; work_unit_id?: string } = {}): Promise<boolean> {
    const { changes } = await this.#db.run(
      `UPDATE uploads SET state = $3, manifest_id = COALESCE($4, manifest_id), work_unit_id = COALESCE($5, work_unit_id), updated_at = $6 WHERE id = $1 AND state = $2`,
      [id, from, to, result.manifest_id ?? null, result.work_unit_id ?? null, new Date().toISOString()],
    );
    return changes > 0;
  }
}
