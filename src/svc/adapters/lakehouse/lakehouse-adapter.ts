/**
 * The lakehouse adapter: Parquet table files as work units.
 *
 * Ingest stores the file's exact bytes through the object gateway's pipeline
 * (work unit → plan under policy → exact executor → byte manifest), and
 * records beside the manifest the table's logical facts (schema, row count,
 * per-column checksums, dataset digest) as a new version of the named table.
 * The facts are computed before anything is stored: a file that is not
 * readable Parquet is a 400 and leaves nothing behind.
 *
 * Two tables whose versions have the same dataset digest hold the same
 * dataset (whatever their bytes): reported as duplicate datasets.
 *
 * `verify` is the restore test "table logical verification": rehydrate the
 * stored bytes through the verified path, re-read them as a table and prove
 * the facts are the ones recorded.
 */
import { sha256Hex } from '../../../core/hashing.ts';
import { newId } from '../../../core/ids.ts';
import { requirePermission } from '../../auth/principal.ts';
import type { TenantGuard } from '../../auth/tenant-guard.ts';
import type { RequestContext } from '../../context.ts';
import { SvcError } from '../../errors.ts';
import type { ManifestService } from '../../manifests/manifest-service.ts';
import type { ObjectGateway } from '../../objects/object-gateway.ts';
import type { AdapterRecord, AdapterRecordRepository } from '../../store/repositories/adapter-records.ts';
import { validate } from '../../validation.ts';
import type { AdapterRegistry } from '../adapter-registry.ts';
import { TablePutRequest, TableRefRequest, TenantOnlyRequest } from '../adapter-schemas.ts';
import { decodeAdapterBody } from '../decode-body.ts';
import { readAll } from '../read-all.ts';
import { type TableFacts, computeTableFacts, tableDifference } from './table-facts.ts';

export const LAKEHOUSE = 'lakehouse';
const KIND = 'table_version';

export interface TableVersionFacts extends TableFacts {
  bucket: string;
  key: string;
}

export interface TableVersion {
  table: string;
  version: number;
  bucket: string;
  key: string;
  manifest_id: string;
  sha256: string;
  bytes: number;
  row_count: number;
  columns: TableFacts['columns'];
  dataset_digest: string;
  created_at: string;
}

export interface LakehouseDeps {
  registry: AdapterRegistry;
  records: AdapterRecordRepository;
  gateway: ObjectGateway;
  manifests: ManifestService;
  tenants: TenantGuard;
  maxBodyBytes: number;
}

const toVersion = (r: AdapterRecord<TableVersionFacts>): TableVersion => ({
  table: r.subject,
  version: r.seq,
  bucket: r.facts.bucket,
  key: r.facts.key,
  manifest_id: r.manifest_id!,
  sha256: r.sha256!,
  bytes: r.bytes,
  row_count: r.facts.row_count,
  columns: r.facts.columns,
  dataset_digest: r.facts.dataset_digest,
  created_at: r.created_at,
});

export class LakehouseAdapter {
  readonly #d: LakehouseDeps;
  constructor(deps: LakehouseDeps) {
    this.#d = deps;
  }

  /** Stores a table file as the next version of `table`; returns the version and any other table holding the same dataset. */
  async putTable(ctx: RequestContext, raw: unknown): Promise<{ version: TableVersion; work_unit_id: string; bytes_stored: number; duplicates: { table: string; version: number }[] }> {
    requirePermission(ctx.principal, 'work_units:write');
    this.#d.registry.require(LAKEHOUSE);
    const input = validate(TablePutRequest, raw);
    const tenant = await this.#d.tenants.resolve(ctx, input.tenant, 'adapter.tenant');
    const bytes = decodeAdapterBody(input.body_base64, this.#d.maxBodyBytes);
    const facts = await computeTableFacts(bytes);
    const sha256 = sha256Hex(bytes);
    const stored = await this.#d.gateway.storeObject(ctx, {
      tenant,
      bucket: input.bucket,
      key: input.key,
      mode: input.mode,
      contentType: 'application/vnd.apache.parquet',
      size: bytes.byteLength,
      sha256,
      source: (async function* () {
        yield bytes;
      })(),
    });
    const record = await this.#insertNext(tenant, input.table, { ...facts, bucket: input.bucket, key: input.key }, stored.manifest_id, sha256, bytes.byteLength);
    const duplicates = (await this.#d.records.byFingerprint<TableVersionFacts>(tenant, LAKEHOUSE, KIND, facts.dataset_digest))
      .filter((r) => r.subject !== input.table)
      .map((r) => ({ table: r.subject, version: r.seq }));
    return { version: toVersion(record), work_unit_id: stored.work_unit_id, bytes_stored: stored.details.bytes_stored, duplicates };
  }

  /** The latest version of each table of a tenant. */
  async listTables(ctx: RequestContext, raw: unknown): Promise<{ tables: TableVersion[] }> {
    requirePermission(ctx.principal, 'work_units:read');
    this.#d.registry.require(LAKEHOUSE);
    const input = validate(TenantOnlyRequest, raw);
    const tenant = await this.#d.tenants.resolve(ctx, input.tenant, 'adapter.tenant');
    const rows = await this.#d.records.latestPerSubject<TableVersionFacts>(tenant, LAKEHOUSE, KIND, input.limit ?? 100);
    return { tables: rows.map(toVersion) };
  }

  /** Every version of one table; an unknown table is `not_found`. */
  async versions(ctx: RequestContext, raw: unknown): Promise<{ table: string; versions: TableVersion[] }> {
    requirePermission(ctx.principal, 'work_units:read');
    this.#d.registry.require(LAKEHOUSE);
    const input = validate(TableRefRequest, raw);
    const tenant = await this.#d.tenants.resolve(ctx, input.tenant, 'adapter.tenant');
    const rows = await this.#d.records.ofSubject<TableVersionFacts>(tenant, LAKEHOUSE, KIND, input.table);
    if (rows.length === 0) throw new SvcError('not_found', 'no such table');
    return { table: input.table, versions: rows.map(toVersion) };
  }

  /** Datasets held by more than one table of the tenant (a data-quality finding: duplicate datasets). */
  async duplicates(ctx: RequestContext, raw: unknown): Promise<{ duplicates: { dataset_digest: string; tables: { table: string; version: number; bytes: number }[]; bytes_duplicated: number }[] }> {
    requirePermission(ctx.principal, 'work_units:read');
    this.#d.registry.require(LAKEHOUSE);
    const input = validate(TenantOnlyRequest, raw);
    const tenant = await this.#d.tenants.resolve(ctx, input.tenant, 'adapter.tenant');
    const shared = await this.#d.records.sharedFingerprints(tenant, LAKEHOUSE, KIND, input.limit ?? 100);
    const out = [];
    for (const s of shared) {
      const rows = await this.#d.records.byFingerprint<TableVersionFacts>(tenant, LAKEHOUSE, KIND, s.fingerprint);
      const firstPerTable = new Map<string, AdapterRecord<TableVersionFacts>>();
      for (const r of rows) if (!firstPerTable.has(r.subject)) firstPerTable.set(r.subject, r);
      const tables = [...firstPerTable.values()].map((r) => ({ table: r.subject, version: r.seq, bytes: r.bytes }));
      out.push({ dataset_digest: s.fingerprint, tables, bytes_duplicated: tables.slice(1).reduce((n, t) => n + t.bytes, 0) });
    }
    return { duplicates: out };
  }

  /**
   * Manifest ids of table versions whose dataset an older version of another
   * table already holds (the reports' duplicate_datasets finding). Internal:
   * the report service has checked the caller's scope.
   */
  async duplicateManifests(tenant: string | undefined): Promise<string[]> {
    const rows = await this.#d.records.withSharedFingerprint<TableVersionFacts>(tenant, LAKEHOUSE, KIND);
    const firstTable = new Map<string, string>();
    const out: string[] = [];
    for (const r of rows) {
      const group = `${r.tenant}\u0000${r.fingerprint}`;
      const first = firstTable.get(group);
      if (first === undefined) firstTable.set(group, r.subject);
      else if (first !== r.subject && r.manifest_id) out.push(r.manifest_id);
    }
    return out;
  }

  /** Table versions to verify, one page of records at a time (restore test `table_logical`). */
  async *tableManifests(tenant: string | undefined): AsyncGenerator<{ manifest_id: string; record_id: string }> {
    let after = '';
    for (;;) {
      const page = await this.#d.records.page<TableVersionFacts>(tenant, LAKEHOUSE, KIND, after, 200);
      for (const r of page) if (r.manifest_id) yield { manifest_id: r.manifest_id, record_id: r.id };
      if (page.length < 200) return;
      after = page[page.length - 1]!.id;
    }
  }

  /**
   * Re-reads the restored bytes of a table version and compares its facts to
   * the recorded ones. A rehydration failure propagates (`rehydration_failed`).
   */
  async verify(ctx: RequestContext, recordId: string, manifestId: string): Promise<{ passed: boolean; reason?: string }> {
    const found = await this.#d.records.get<TableVersionFacts>(recordId);
    if (!found) return { passed: false, reason: 'table record vanished' };
    const rehydration = await this.#d.manifests.restoreFromStorage(ctx, manifestId);
    const bytes = await readAll(rehydration.stream, Math.max(this.#d.maxBodyBytes, rehydration.size));
    let actual: TableFacts;
    try {
      actual = await computeTableFacts(bytes);
    } catch (err) {
      return { passed: false, reason: `restored file is not a readable table: ${(err as Error).message}`.slice(0, 300) };
    }
    const diff = tableDifference(found.facts, actual);
    return diff ? { passed: false, reason: `table ${found.subject} v${found.seq}: ${diff}` } : { passed: true };
  }

  /** Next version number; a concurrent put of the same table retries on the unique key. */
  async #insertNext(tenant: string, table: string, facts: TableVersionFacts, manifestId: string, sha256: string, bytes: number): Promise<AdapterRecord<TableVersionFacts>> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const existing = await this.#d.records.ofSubject(tenant, LAKEHOUSE, KIND, table);
      const record: AdapterRecord<TableVersionFacts> = {
        id: newId('adr'),
        tenant,
        adapter: LAKEHOUSE,
        kind: KIND,
        subject: table,
        seq: (existing.at(-1)?.seq ?? 0) + 1,
        manifest_id: manifestId,
        sha256,
        bytes,
        fingerprint: facts.dataset_digest,
        facts,
        created_at: new Date().toISOString(),
        last_read_at: null,
      };
      if (await this.#d.records.insert(record)) return record;
    }
    throw new SvcError('conflict', 'table is being written concurrently; retry');
  }
}
