/**
 * Byte-object manifests. A manifest is one row (indexed columns + the full
 * JSON body); its chunk list lives in the body, so a manifest write is one
 * INSERT.
 *
 * The `chunks` table of migration 010 (one row per new stored form, with the
 * manifest that stored it first) is no longer written (decision 174): nothing
 * read it — where a chunk's bytes are, and whether a stored form exists, is
 * the pack index (`chunk_index`, chunk-packs.ts) or the old one-file-per-chunk
 * layout — and its rows plus their primary-key index were a third of the
 * SQLite file after an ingest. The table stays (migrations are additive, so a
 * process of the previous release can still insert into it during a rolling
 * upgrade) and can be dropped at the next major version.
 */
import type { Db, SqlValue } from '../db.ts';
import type { ByteManifest, ManifestState, ManifestSummary, VerifierStatus } from '../../manifests/manifest.ts';
import { summarize } from '../../manifests/manifest.ts';
import { type BodyFingerprint, ManifestBodyCache, MIN_CACHED_CHUNKS } from './manifest-body-cache.ts';

export interface ManifestListFilter {
  tenant?: string | undefined;
  logicalRef?: string | undefined;
  states: readonly ManifestState[];
  after?: string | undefined;
  limit: number;
  /** Newest first (ids are time-ordered); `after` then means "older than". Default oldest first. */
  newestFirst?: boolean;
}

export interface ManifestAggregateRow {
  kind: string;
  contract: string;
  state: string;
  count: number;
  bytes_in: number;
  bytes_stored: number;
}


export class ManifestRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /** Writes a manifest (one INSERT: its chunk list is in the body). */
  async insert(m: ByteManifest): Promise<void> {
    await this.#db.run(
      `INSERT INTO manifests (id, work_unit_id, tenant, kind, logical_ref, contract, mode, state, schema_version, sha256, bytes_in, bytes_stored,
         chunk_count, chunk_scope, verifier_status, cache_result, trace_id, policy_bundle_id, plan_id, body, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22)`,
      [
        m.manifest_id, m.work_unit_id, m.tenant, m.kind, m.logical_ref, m.contract, m.mode, m.state, m.schema_version, m.sha256, m.bytes_in,
        m.bytes_stored, m.chunks.length, m.chunk_scope, m.verifier_status, m.cache_result, m.trace_id, m.policy_bundle_id, m.plan_id,
        JSON.stringify(m), m.created_at, m.updated_at,
      ],
    );
  }

  /**
   * One manifest, its state columns read from the row every time. The body of a large manifest comes from the
   * parsed-body cache while the row still matches it (decision 196): the row query then leaves the body out.
   */
  async get(id: string): Promise<ByteManifest | undefined> {
    const row = await this.#db.get<StateColumns & { body: string | null } & BodyFingerprint>(
      `SELECT CASE WHEN chunk_count < ${MIN_CACHED_CHUNKS} THEN body END AS body, state, verifier_status, updated_at, state_reason, sha256, chunk_count, created_at
       FROM manifests WHERE id = $1`,
      [id],
    );
    if (!row) return undefined;
    if (typeof row.body === 'string') return withState(JSON.parse(row.body) as ByteManifest, row);
    let body = PARSED_BODIES.get(id, row);
    if (!body) {
      const text = await this.#db.get<{ body: string }>('SELECT body FROM manifests WHERE id = $1', [id]);
      // Deleted between the two reads.
      if (!text) return undefined;
      body = PARSED_BODIES.remember(id, JSON.parse(text.body) as ByteManifest);
    }
    return withState(body, row);
  }

  async list(f: ManifestListFilter): Promise<ManifestSummary[]> {
    const params: SqlValue[] = [];
    const where: string[] = [];
    const add = (sql: (n: number) => string, v: SqlValue) => {
      params.push(v);
      where.push(sql(params.length));
    };
    if (f.tenant !== undefined) add((n) => `tenant = $${n}`, f.tenant);
    if (f.logicalRef !== undefined) add((n) => `logical_ref = $${n}`, f.logicalRef);
    if (f.after !== undefined) add((n) => (f.newestFirst ? `id < $${n}` : `id > $${n}`), f.after);
    const marks = f.states.map((s) => {
      params.push(s);
      return `$${params.length}`;
    });
    where.push(`state IN (${marks.join(', ')})`);
    params.push(f.limit);
    const rows = await this.#db.all<ManifestRow>(
      `SELECT body, state, verifier_status, updated_at, state_reason FROM manifests WHERE ${where.join(' AND ')} ORDER BY id ${f.newestFirst ? 'DESC' : 'ASC'} LIMIT $${params.length}`,
      params,
    );
    return rows.map((r) => summarize(fromRow(r)));
  }

  /** Full manifests of a tenant in id order, for export. */
  async page(tenant: string | undefined, after: string, limit: number): Promise<ByteManifest[]> {
    const rows = await this.#db.all<ManifestRow>(
      `SELECT body, state, verifier_status, updated_at, state_reason FROM manifests WHERE ($1 = '' OR tenant = $1) AND id > $2 ORDER BY id LIMIT $3`,
      [tenant ?? '', after, limit],
    );
    return rows.map(fromRow);
  }

  /**
   * Moves a manifest to `to` if it is in one of `from`; returns false when
   * it was not (someone else changed it first), so transitions never race.
   */
  async transition(id: string, from: readonly ManifestState[], to: ManifestState, reason: string): Promise<boolean> {
    const marks = from.map((_, k) => `$${k + 5}`).join(', ');
    const { changes } = await this.#db.run(
      `UPDATE manifests SET state = $2, updated_at = $3, state_reason = $4 WHERE id = $1 AND state IN (${marks})`,
      [id, to, new Date().toISOString(), reason, ...from],
    );
    return changes > 0;
  }

  /**
   * Records that a tombstoned manifest outlived its retention: garbage
   * collection may collect the chunks only it referenced, and a rehydration
   * is refused as such instead of failing on a missing chunk. The state stays
   * `tombstoned`; `updated_at` is left alone (it dates the tombstone).
   */
  async markRetentionExpired(id: string): Promise<boolean> {
    const { changes } = await this.#db.run(`UPDATE manifests SET state_reason = 'retention_expired' WHERE id = $1 AND state = 'tombstoned'`, [id]);
    return changes > 0;
  }

  async setVerifierStatus(id: string, status: VerifierStatus): Promise<void> {
    await this.#db.run('UPDATE manifests SET verifier_status = $2 WHERE id = $1 AND verifier_status <> $2', [id, status]);
  }

  async aggregates(tenant: string | undefined): Promise<ManifestAggregateRow[]> {
    const rows = await this.#db.all<ManifestAggregateRow>(
      `SELECT kind, contract, state, COUNT(*) AS count, COALESCE(SUM(bytes_in), 0) AS bytes_in, COALESCE(SUM(bytes_stored), 0) AS bytes_stored
       FROM manifests WHERE ($1 = '' OR tenant = $1) GROUP BY kind, contract, state ORDER BY kind, contract, state`,
      [tenant ?? ''],
    );
    return rows.map((r) => ({ ...r, count: Number(r.count), bytes_in: Number(r.bytes_in), bytes_stored: Number(r.bytes_stored) }));
  }
}

/** The body is authoritative except for the columns that change after the write. */
interface ManifestRow {
  body: string;
  state: string;
  verifier_status: string;
  updated_at: string;
  state_reason: string | null;
}

/** The columns that change after the write. */
type StateColumns = Omit<ManifestRow, 'body'>;

function fromRow(r: ManifestRow): ByteManifest {
  return withState(JSON.parse(r.body) as ByteManifest, r);
}

/** A body with the row's current state columns: a shallow copy (a cached body is frozen; its chunk list is shared). */
function withState(body: ByteManifest, r: StateColumns): ByteManifest {
  return { ...body, state: r.state as ManifestState, verifier_status: r.verifier_status as VerifierStatus, updated_at: r.updated_at, state_reason: r.state_reason };
}

/** One per process: bodies are immutable, so every connection and transaction may share them. */
const PARSED_BODIES = new ManifestBodyCache();
