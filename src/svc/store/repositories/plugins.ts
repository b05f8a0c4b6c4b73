/**
 * Installed plugin bundles (src/svc/plugins). A row keeps the bundle exactly
 * as uploaded — signed manifest text, signature, file bytes — so the
 * signature can be checked again at every load and enable; nothing here is
 * trusted without that check.
 */
import type { Db } from '../db.ts';

export interface PluginSignatureRecord {
  algorithm: 'ed25519';
  publisher: string;
  /** base64 */
  value: string;
}

export interface PluginRecord {
  id: string;
  version: string;
  kind: string;
  publisher: string;
  bundle_sha256: string;
  manifest_json: string;
  signature: PluginSignatureRecord | null;
  /** path → base64 bytes */
  files: Record<string, string>;
  status: 'enabled' | 'disabled';
  installed_at: string;
  installed_by: string;
  updated_at: string;
  updated_by: string;
}

type Row = Omit<PluginRecord, 'signature' | 'files' | 'status'> & { signature: string | null; files: string; status: string };

const toRecord = (r: Row): PluginRecord => ({
  ...r,
  signature: r.signature === null ? null : (JSON.parse(r.signature) as PluginSignatureRecord),
  files: JSON.parse(r.files) as Record<string, string>,
  status: r.status === 'enabled' ? 'enabled' : 'disabled',
});

export class PluginRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /** Installs or replaces the plugin with this id (one version per id is installed at a time). */
  async put(r: PluginRecord): Promise<void> {
    await this.#db.run(
      `INSERT INTO plugins (id, version, kind, publisher, bundle_sha256, manifest_json, signature, files, status, installed_at, installed_by, updated_at, updated_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       ON CONFLICT (id) DO UPDATE SET version = excluded.version, kind = excluded.kind, publisher = excluded.publisher,
         bundle_sha256 = excluded.bundle_sha256, manifest_json = excluded.manifest_json, signature = excluded.signature,
         files = excluded.files, status = excluded.status, installed_at = excluded.installed_at, installed_by = excluded.installed_by,
         updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
      [r.id, r.version, r.kind, r.publisher, r.bundle_sha256, r.manifest_json, r.signature === null ? null : JSON.stringify(r.signature), JSON.stringify(r.files), r.status, r.installed_at, r.installed_by, r.updated_at, r.updated_by],
    );
  }

  async get(id: string): Promise<PluginRecord | undefined> {
    const r = await this.#db.get<Row>('SELECT * FROM plugins WHERE id = $1', [id]);
    return r ? toRecord(r) : undefined;
  }

  async list(): Promise<PluginRecord[]> {
    const rows = await this.#db.all<Row>('SELECT * FROM plugins ORDER BY id');
    return rows.map(toRecord);
  }

  /** Sets the status of the bundle that was checked (false when another bundle replaced it meanwhile). */
  async setStatus(id: string, bundleSha256: string, status: 'enabled' | 'disabled', by: string, at: string): Promise<boolean> {
    const res = await this.#db.run('UPDATE plugins SET status = $1, updated_at = $2, updated_by = $3 WHERE id = $4 AND bundle_sha256 = $5', [status, at, by, id, bundleSha256]);
    return res.changes === 1;
  }
}
