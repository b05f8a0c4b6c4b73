/** Shared policy bundle documents (migration 096): written once per content hash, read by every process. */
import type { Db } from '../db.ts';

export interface PolicyBundleDocument {
  hash: string;
  bundle_id: string;
  name: string;
  version: string;
  /** The bundle as YAML, exactly as the writing process stored it (it validates to the same hash). */
  document: string;
}

export class PolicyDocumentRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /** Idempotent: the same content is stored once. */
  async put(doc: PolicyBundleDocument): Promise<void> {
    await this.#db.run(
      'INSERT INTO policy_bundle_documents (hash, bundle_id, name, version, document, created_at) VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (hash) DO NOTHING',
      [doc.hash, doc.bundle_id, doc.name, doc.version, doc.document, new Date().toISOString()],
    );
  }

  async byHash(hash: string): Promise<PolicyBundleDocument | undefined> {
    return (await this.#db.get('SELECT hash, bundle_id, name, version, document FROM policy_bundle_documents WHERE hash = $1', [hash])) as PolicyBundleDocument | undefined;
  }

  async byVersion(name: string, version: string): Promise<PolicyBundleDocument | undefined> {
    return (await this.#db.get('SELECT hash, bundle_id, name, version, document FROM policy_bundle_documents WHERE name = $1 AND version = $2 ORDER BY created_at DESC LIMIT 1', [name, version])) as PolicyBundleDocument | undefined;
  }
}
