/**
 * Read-only queries the reports are computed from: byte manifests, compute
 * manifests and ledger event counts inside a window, and the ledger head.
 * Every report figure is a function of these rows only (docs/reports.md), so
 * a restart loses nothing and an auditor can run the same queries.
 */
import { settleAiRecords } from './ai-record-journal.ts';
import type { AiComputeManifest } from '../../ai/gateway/ports.ts';
import type { ManifestStats } from '../../manifests/manifest.ts';
import type { Db, SqlValue } from '../db.ts';

export interface ReportScope {
  from: string;
  to: string;
  tenant: string | undefined;
}

/** A byte manifest as reports see it: indexed columns plus the write-time stats of its body. */
export interface ByteManifestRow {
  id: string;
  tenant: string;
  logical_ref: string;
  contract: string;
  mode: 'observe' | 'enforce';
  state: string;
  bytes_in: number;
  bytes_stored: number;
  chunk_count: number;
  verifier_status: string;
  created_at: string;
  stats: ManifestStats;
}

export interface LedgerHead {
  seq: number;
  event_id: string;
  hash: string;
  ts: string;
}

function where(scope: ReportScope, column: string): { sql: string; params: SqlValue[] } {
  const params: SqlValue[] = [scope.from, scope.to];
  let sql = `${column} >= $1 AND ${column} < $2`;
  if (scope.tenant !== undefined) {
    params.push(scope.tenant);
    sql += ` AND tenant = $${params.length}`;
  }
  return { sql, params };
}

export class ReportRowsRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  async byteManifests(scope: ReportScope): Promise<ByteManifestRow[]> {
    const w = where(scope, 'created_at');
    const rows = await this.#db.all<Omit<ByteManifestRow, 'stats'> & { body: string }>(
      `SELECT id, tenant, logical_ref, contract, mode, state, bytes_in, bytes_stored, chunk_count, verifier_status, created_at, body
         FROM manifests WHERE ${w.sql} ORDER BY id`,
      w.params,
    );
    return rows.map(({ body, ...r }) => ({
      ...r,
      bytes_in: Number(r.bytes_in),
      bytes_stored: Number(r.bytes_stored),
      chunk_count: Number(r.chunk_count),
      stats: (JSON.parse(body) as { stats: ManifestStats }).stats,
    }));
  }

  async computeManifests(scope: ReportScope): Promise<AiComputeManifest[]> {
    await settleAiRecords(this.#db);
    const w = where(scope, 'created_at');
    const rows = await this.#db.all<{ body: string }>(`SELECT body FROM ai_manifests WHERE ${w.sql} ORDER BY id`, w.params);
    return rows.map((r) => JSON.parse(r.body) as AiComputeManifest);
  }

  /** Event counts by type in the window, up to and including the head the report was computed at. */
  async ledgerCounts(scope: ReportScope, maxSeq: number): Promise<Record<string, number>> {
    const w = where(scope, 'ts');
    w.params.push(maxSeq);
    const rows = await this.#db.all<{ type: string; n: number }>(
      `SELECT type, COUNT(*) AS n FROM ledger_events WHERE ${w.sql} AND seq <= $${w.params.length} GROUP BY type ORDER BY type`,
      w.params,
    );
    return Object.fromEntries(rows.map((r) => [r.type, Number(r.n)]));
  }

  /** Ids (and manifest ids) of events of some types in the window: evidence for findings and alerts. */
  async ledgerEvidence(scope: ReportScope, types: readonly string[], maxSeq: number, limit = 50): Promise<Array<{ id: string; type: string; manifest_id: string | null; payload: string }>> {
    if (types.length === 0) return [];
    const w = where(scope, 'ts');
    const marks = types.map((t) => {
      w.params.push(t);
      return `$${w.params.length}`;
    });
    w.params.push(maxSeq, limit);
    return this.#db.all(
      `SELECT id, type, manifest_id, payload FROM ledger_events WHERE ${w.sql} AND type IN (${marks.join(', ')}) AND seq <= $${w.params.length - 1} ORDER BY seq DESC LIMIT $${w.params.length}`,
      w.params,
    );
  }

  /** Active byte manifests of a tenant (or all), with their chunk ids: recommendations look at everything still stored. */
  async activeByteManifests(tenant: string | undefined): Promise<Array<ByteManifestRow & { chunk_ids: string[] }>> {
    const params: SqlValue[] = [];
    let sql = "SELECT id, tenant, logical_ref, contract, mode, state, bytes_in, bytes_stored, chunk_count, verifier_status, created_at, body FROM manifests WHERE state = 'active'";
    if (tenant !== undefined) {
      params.push(tenant);
      sql += ' AND tenant = $1';
    }
    const rows = await this.#db.all<Omit<ByteManifestRow, 'stats'> & { body: string }>(`${sql} ORDER BY id`, params);
    return rows.map(({ body, ...r }) => {
      const parsed = JSON.parse(body) as { stats: ManifestStats; chunks: Array<{ id: string }> };
      return { ...r, bytes_in: Number(r.bytes_in), bytes_stored: Number(r.bytes_stored), chunk_count: Number(r.chunk_count), stats: parsed.stats, chunk_ids: parsed.chunks.map((c) => c.id) };
    });
  }

  /** Last object read (object.get / object.range event) per manifest, at or before the head. */
  async lastReads(tenant: string | undefined, maxSeq: number): Promise<Map<string, string>> {
    const params: SqlValue[] = [maxSeq];
    let sql = "SELECT manifest_id, MAX(ts) AS last FROM ledger_events WHERE type IN ('object.get', 'object.range') AND manifest_id IS NOT NULL AND seq <= $1";
    if (tenant !== undefined) {
      params.push(tenant);
      sql += ' AND tenant = $2';
    }
    const rows = await this.#db.all<{ manifest_id: string; last: string }>(`${sql} GROUP BY manifest_id`, params);
    return new Map(rows.map((r) => [r.manifest_id, r.last]));
  }

  async ledgerHead(): Promise<LedgerHead | undefined> {
    const row = await this.#db.get<{ seq: number; id: string; hash: string; ts: string }>('SELECT seq, id, hash, ts FROM ledger_events ORDER BY seq DESC LIMIT 1');
    return row ? { seq: Number(row.seq), event_id: row.id, hash: row.hash, ts: row.ts } : undefined;
  }
}
