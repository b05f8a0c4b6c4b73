/**
 * Ledger persistence: batched chained appends, filtered queries, ordered
 * scans for verification. The chain head is read inside the write
 * transaction under `lockChain('ledger')`, so concurrent writers — also in
 * other processes on PostgreSQL — always extend one linear chain.
 */
import { canonicalJson } from '../../../core/canonical-json.ts';
import { GENESIS_HASH, chainHash } from '../../../core/hash-chain.ts';
import { newId } from '../../../core/ids.ts';
import type { Db, SqlValue } from '../db.ts';
import { type LedgerEventInput, type LedgerRow, canonicalEventBody } from '../../ledger/event.ts';

export const LEDGER_COLUMNS = ['seq', 'id', 'ts', 'type', 'tenant', 'actor', 'work_unit_id', 'manifest_id', 'policy_bundle_id', 'trace_id', 'payload', 'prev_hash', 'hash'] as const;
const COLUMNS = LEDGER_COLUMNS;
const INSERT_BATCH = 200;

/**
 * `prev_hash + "\n" + canonicalEventBody(row)` as SQL, keys in canonical order. SQLite: one `concat` call (a chain
 * of `||` copies the growing string once per operand); `json_quote(NULL)` is `null`. PostgreSQL: `to_json` quoting.
 */
function recordSql(quote: (column: string) => string, join: (parts: string[]) => string): string {
  const parts = [
    'prev_hash', "'\n{\"actor\":'", quote('actor'), "',\"id\":'", quote('id'), "',\"manifest_id\":'", quote('manifest_id'), "',\"payload\":'", 'payload',
    "',\"policy_bundle_id\":'", quote('policy_bundle_id'), "',\"seq\":'", 'CAST(seq AS TEXT)', "',\"tenant\":'", quote('tenant'), "',\"trace_id\":'", quote('trace_id'),
    "',\"ts\":'", quote('ts'), "',\"type\":'", quote('type'), "',\"work_unit_id\":'", quote('work_unit_id'), "'}'",
  ];
  return `CASE WHEN octet_length(prev_hash) = 64 THEN ${join(parts)} ELSE '' END`;
}
const SQLITE_RECORD = recordSql((c) => `json_quote(${c})`, (parts) => `concat(${parts.join(', ')})`);
const POSTGRES_RECORD = recordSql((c) => `COALESCE(to_json(${c})::text, 'null')`, (parts) => `COALESCE(${parts.join(' || ')}, '')`);

export interface LedgerQuery {
  tenant?: string | undefined;
  from?: string | undefined;
  to?: string | undefined;
  eventTypes?: readonly string[] | undefined;
  afterSeq?: number | undefined;
  limit: number;
}

export class LedgerRepository {
  readonly db: Db;
  constructor(db: Db) {
    this.db = db;
  }

  /**
   * Appends events in order as one transaction; returns the stored rows.
   * `before` writes other rows in the same transaction first (records the
   * events describe, committed atomically with them).
   */
  async appendBatch(inputs: readonly LedgerEventInput[], before?: (tx: Db) => Promise<void>): Promise<LedgerRow[]> {
    return this.db.transaction(async (tx) => {
      if (before) await before(tx);
      if (inputs.length === 0) return [];
      await tx.lockChain('ledger');
      const head = await tx.get<{ seq: number; hash: string }>('SELECT seq, hash FROM ledger_events ORDER BY seq DESC LIMIT 1');
      let seq = Number(head?.seq ?? 0);
      let prev = head?.hash ?? GENESIS_HASH;
      const ts = new Date().toISOString();
      const rows: LedgerRow[] = inputs.map((input) => {
        seq += 1;
        const base = {
          seq,
          id: input.id ?? newId('evt'),
          ts,
          type: input.type,
          tenant: input.tenant ?? null,
          actor: input.actor,
          work_unit_id: input.work_unit_id ?? null,
          manifest_id: input.manifest_id ?? null,
          policy_bundle_id: input.policy_bundle_id ?? null,
          trace_id: input.trace_id ?? null,
          payload: canonicalJson(input.payload ?? {}),
        };
        const hash = chainHash(prev, canonicalEventBody(base));
        const row = { ...base, prev_hash: prev, hash };
        prev = hash;
        return row;
      });
      if (tx.dialect === 'sqlite') {
        // In-process SQLite: one prepared single-row statement is fastest.
        const sql = `INSERT INTO ledger_events (${COLUMNS.join(', ')}) VALUES (${COLUMNS.map((_, c) => `$${c + 1}`).join(', ')})`;
        for (const row of rows) await tx.run(sql, COLUMNS.map((c) => row[c]));
      } else {
        // Over the network: multi-row inserts save round trips.
        for (let i = 0; i < rows.length; i += INSERT_BATCH) {
          const slice = rows.slice(i, i + INSERT_BATCH);
          const values: SqlValue[] = [];
          const tuples = slice.map((row, r) => {
            for (const c of COLUMNS) values.push(row[c]);
            return `(${COLUMNS.map((_, c) => `$${r * COLUMNS.length + c + 1}`).join(', ')})`;
          });
          await tx.run(`INSERT INTO ledger_events (${COLUMNS.join(', ')}) VALUES ${tuples.join(', ')}`, values);
        }
      }
      return rows;
    });
  }

  async query(q: LedgerQuery): Promise<LedgerRow[]> {
    const where: string[] = [];
    const params: SqlValue[] = [];
    const add = (clause: (n: number) => string, value: SqlValue) => {
      params.push(value);
      where.push(clause(params.length));
    };
    if (q.tenant !== undefined) add((n) => `tenant = $${n}`, q.tenant);
    if (q.from !== undefined) add((n) => `ts >= $${n}`, q.from);
    if (q.to !== undefined) add((n) => `ts <= $${n}`, q.to);
    if (q.afterSeq !== undefined) add((n) => `seq > $${n}`, q.afterSeq);
    if (q.eventTypes && q.eventTypes.length > 0) {
      const marks = q.eventTypes.map((t) => {
        params.push(t);
        return `$${params.length}`;
      });
      where.push(`type IN (${marks.join(', ')})`);
    }
    params.push(q.limit);
    const sql = `SELECT ${COLUMNS.join(', ')} FROM ledger_events ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY seq LIMIT $${params.length}`;
    return this.db.all<LedgerRow>(sql, params);
  }

  /** Rows in chain order after `afterSeq`, for streaming (verification reads `scanRecords`). */
  scan(afterSeq: number, limit: number): Promise<LedgerRow[]> {
    return this.db.all<LedgerRow>(`SELECT ${COLUMNS.join(', ')} FROM ledger_events WHERE seq > $1 ORDER BY seq LIMIT $2`, [afterSeq, limit]);
  }

  /** Like `scan`, as arrays in `LEDGER_COLUMNS` order (the exact check of one row in verification). */
  scanValues(afterSeq: number, limit: number): Promise<unknown[][]> {
    return this.db.values(`SELECT ${COLUMNS.join(', ')} FROM ledger_events WHERE seq > $1 ORDER BY seq LIMIT $2`, [afterSeq, limit]);
  }

  /**
   * Rows in chain order as `[seq, record, hash]`, where `record` is exactly the text the row's hash covers,
   * `prev_hash + "\n" + canonical body`, built by the database with the same key order and JSON string escaping
   * as `canonicalEventBody` (SQLite `json_quote`, PostgreSQL `to_json`). Verification then decodes three values per
   * row and hashes `record` as it arrives. `record` is '' when the stored prev_hash is not 64 bytes long, so that a
   * record starting with the expected 64-character prev_hash proves the column equals it. The verifier re-derives a
   * row in JS from its columns before reporting it broken, so an escaping difference can never be a false break.
   * Only a lower bound (the caller stops at its range's end): with `seq > $1 ORDER BY seq LIMIT $2` PostgreSQL walks
   * the primary key even before the table has statistics, where a two-sided range is planned as a bitmap scan of
   * the whole range and a sort, for every page.
   */
  scanRecords(afterSeq: number, limit: number): Promise<unknown[][]> {
    return this.db.values(`SELECT seq, ${this.db.dialect === 'sqlite' ? SQLITE_RECORD : POSTGRES_RECORD}, hash FROM ledger_events WHERE seq > $1 ORDER BY seq LIMIT $2`, [afterSeq, limit]);
  }

  /** The newest row of each of `types` (one indexed lookup per type; ledger_events_type_idx), in chain order. */
  async newestOfTypes(types: readonly string[]): Promise<LedgerRow[]> {
    const rows: LedgerRow[] = [];
    for (const type of types) {
      const row = await this.db.get<LedgerRow>(`SELECT ${COLUMNS.join(', ')} FROM ledger_events WHERE type = $1 ORDER BY seq DESC LIMIT 1`, [type]);
      if (row) rows.push(row);
    }
    return rows.sort((a, b) => Number(a.seq) - Number(b.seq));
  }

  async head(): Promise<{ seq: number; hash: string } | undefined> {
    const row = await this.db.get<{ seq: number; hash: string }>('SELECT seq, hash FROM ledger_events ORDER BY seq DESC LIMIT 1');
    return row ? { seq: Number(row.seq), hash: row.hash } : undefined;
  }
}
