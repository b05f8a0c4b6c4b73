/** Workload adapter records (src/svc/adapters): logical facts kept beside byte manifests. `facts` is JSON text on both engines. */
import type { Db } from '../db.ts';

export interface AdapterRecord<F = Record<string, unknown>> {
  id: string;
  tenant: string;
  adapter: string;
  kind: string;
  subject: string;
  seq: number;
  manifest_id: string | null;
  sha256: string | null;
  bytes: number;
  fingerprint: string | null;
  facts: F;
  created_at: string;
  last_read_at: string | null;
}

type Row = Omit<AdapterRecord, 'facts' | 'seq' | 'bytes'> & { facts: string; seq: number | string; bytes: number | string };

const toRecord = <F>(r: Row): AdapterRecord<F> => ({ ...r, seq: Number(r.seq), bytes: Number(r.bytes), facts: JSON.parse(r.facts) as F });

export class AdapterRecordRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /** Inserts one record; false when (tenant, adapter, kind, subject, seq) is taken (a concurrent append won). */
  async insert(r: AdapterRecord<unknown>): Promise<boolean> {
    const res = await this.#db.run(
      `INSERT INTO adapter_records (id, tenant, adapter, kind, subject, seq, manifest_id, sha256, bytes, fingerprint, facts, created_at, last_read_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13) ON CONFLICT (tenant, adapter, kind, subject, seq) DO NOTHING`,
      [r.id, r.tenant, r.adapter, r.kind, r.subject, r.seq, r.manifest_id, r.sha256, r.bytes, r.fingerprint, JSON.stringify(r.facts), r.created_at, r.last_read_at],
    );
    return res.changes === 1;
  }

  async get<F>(id: string): Promise<AdapterRecord<F> | undefined> {
    const r = await this.#db.get<Row>('SELECT * FROM adapter_records WHERE id = $1', [id]);
    return r ? toRecord<F>(r) : undefined;
  }

  /** Records of one subject in sequence order. */
  async ofSubject<F>(tenant: string, adapter: string, kind: string, subject: string): Promise<AdapterRecord<F>[]> {
    const rows = await this.#db.all<Row>('SELECT * FROM adapter_records WHERE tenant = $1 AND adapter = $2 AND kind = $3 AND subject = $4 ORDER BY seq', [tenant, adapter, kind, subject]);
    return rows.map((r) => toRecord<F>(r));
  }

  /** The latest record of each subject of a kind (bounded by `limit`), subject order. */
  async latestPerSubject<F>(tenant: string, adapter: string, kind: string, limit: number): Promise<AdapterRecord<F>[]> {
    const rows = await this.#db.all<Row>(
      `SELECT r.* FROM adapter_records r
       JOIN (SELECT subject, MAX(seq) AS seq FROM adapter_records WHERE tenant = $1 AND adapter = $2 AND kind = $3 GROUP BY subject) m
         ON r.subject = m.subject AND r.seq = m.seq
       WHERE r.tenant = $1 AND r.adapter = $2 AND r.kind = $3 ORDER BY r.subject LIMIT $4`,
      [tenant, adapter, kind, limit],
    );
    return rows.map((r) => toRecord<F>(r));
  }

  /** Every record of a kind, optionally of one tenant, in id order, one page at a time. */
  async page<F>(tenant: string | undefined, adapter: string, kind: string, after: string, limit: number): Promise<AdapterRecord<F>[]> {
    const rows =
      tenant === undefined
        ? await this.#db.all<Row>('SELECT * FROM adapter_records WHERE adapter = $1 AND kind = $2 AND id > $3 ORDER BY id LIMIT $4', [adapter, kind, after, limit])
        : await this.#db.all<Row>('SELECT * FROM adapter_records WHERE tenant = $1 AND adapter = $2 AND kind = $3 AND id > $4 ORDER BY id LIMIT $5', [tenant, adapter, kind, after, limit]);
    return rows.map((r) => toRecord<F>(r));
  }

  /** Records of a tenant sharing a fingerprint (duplicate datasets, identical training runs). */
  async byFingerprint<F>(tenant: string, adapter: string, kind: string, fingerprint: string): Promise<AdapterRecord<F>[]> {
    const rows = await this.#db.all<Row>('SELECT * FROM adapter_records WHERE tenant = $1 AND adapter = $2 AND kind = $3 AND fingerprint = $4 ORDER BY id', [tenant, adapter, kind, fingerprint]);
    return rows.map((r) => toRecord<F>(r));
  }

  /** Fingerprints held by more than one distinct subject of a tenant (duplicate datasets across tables). */
  async sharedFingerprints(tenant: string, adapter: string, kind: string, limit: number): Promise<{ fingerprint: string; subjects: number }[]> {
    const rows = await this.#db.all<{ fingerprint: string; subjects: number | string }>(
      `SELECT fingerprint, COUNT(DISTINCT subject) AS subjects FROM adapter_records
       WHERE tenant = $1 AND adapter = $2 AND kind = $3 AND fingerprint IS NOT NULL
       GROUP BY fingerprint HAVING COUNT(DISTINCT subject) > 1 ORDER BY fingerprint LIMIT $4`,
      [tenant, adapter, kind, limit],
    );
    return rows.map((r) => ({ fingerprint: r.fingerprint, subjects: Number(r.subjects) }));
  }

  /** Records whose (tenant, fingerprint) is held by more than one subject, optionally of one tenant; id order. */
  async withSharedFingerprint<F>(tenant: string | undefined, adapter: string, kind: string): Promise<AdapterRecord<F>[]> {
    const rows = await this.#db.all<Row>(
      `SELECT r.* FROM adapter_records r
       JOIN (SELECT tenant, fingerprint FROM adapter_records WHERE adapter = $1 AND kind = $2 AND fingerprint IS NOT NULL
             GROUP BY tenant, fingerprint HAVING COUNT(DISTINCT subject) > 1) d
         ON r.tenant = d.tenant AND r.fingerprint = d.fingerprint
       WHERE r.adapter = $1 AND r.kind = $2 AND ($3 = '' OR r.tenant = $3) ORDER BY r.id`,
      [adapter, kind, tenant ?? ''],
    );
    return rows.map((r) => toRecord<F>(r));
  }

  async markRead(ids: readonly string[], at: string): Promise<void> {
    for (const id of ids) await this.#db.run('UPDATE adapter_records SET last_read_at = $1 WHERE id = $2', [at, id]);
  }

  /** Test and repair seam: replaces the facts of one record. */
  async setFacts(id: string, facts: unknown): Promise<void> {
    await this.#db.run('UPDATE adapter_records SET facts = $1 WHERE id = $2', [JSON.stringify(facts), id]);
  }
}
