/**
 * Compute manifests of AI work units. Kept in their own table until the
 * manifest store (src/svc/manifests) offers a compute-manifest kind; the
 * body never holds prompt or answer text, only ids, figures and digests.
 */
import type { AiComputeManifest } from '../../ai/gateway/ports.ts';
import { fromBool } from '../db.ts';
import type { Db } from '../db.ts';

export class AiManifestRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async insert(m: AiComputeManifest): Promise<void> {
    await this.#db.run(
      `INSERT INTO ai_manifests (id, work_unit_id, tenant, kind, status, cache, route, fallback_used, trace_id, body, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`,
      [m.manifest_id, m.work_unit_id, m.tenant, m.kind, m.status, m.cache, m.route, fromBool(m.result.fallback_used), m.trace_id, JSON.stringify(m), m.created_at],
    );
  }

  async get(id: string): Promise<AiComputeManifest | undefined> {
    const row = await this.#db.get<{ body: string }>('SELECT body FROM ai_manifests WHERE id = $1', [id]);
    return row ? (JSON.parse(row.body) as AiComputeManifest) : undefined;
  }

  async byWorkUnit(workUnitId: string): Promise<AiComputeManifest | undefined> {
    const row = await this.#db.get<{ body: string }>('SELECT body FROM ai_manifests WHERE work_unit_id = $1', [workUnitId]);
    return row ? (JSON.parse(row.body) as AiComputeManifest) : undefined;
  }
}
