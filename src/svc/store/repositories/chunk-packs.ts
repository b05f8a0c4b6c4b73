/**
 * The pack index (migration 117, docs/chunking.md#pack-files): which pack
 * holds each stored form of a chunk, and the packs themselves. Written only
 * after the pack bytes are durable; insert-if-absent, so two writers racing
 * on one chunk both succeed and the loser's copy becomes dead space that
 * garbage collection reclaims.
 */
import type { Db } from '../db.ts';

/**
 * Rows per INSERT statement: a pack's entries go in statements of these sizes, largest first (128 + 32 + 4 + 1
 * for 165 entries). A statement is prepared once per distinct text and kept by the SQLite connection; with any
 * row count allowed, every new pack size prepared and kept another (~0.6 MB each at 400 rows, measured), so a
 * long-running server could hold hundreds of MB of them. Eight sizes bound that to ~1 MB.
 */
const INSERT_BATCH_SIZES = [128, 64, 32, 16, 8, 4, 2, 1] as const;

/** The statement text of an index INSERT of `rows` rows, built once per size. */
const insertSql = new Map<number, string>();
function indexInsertSql(rows: number): string {
  let sql = insertSql.get(rows);
  if (!sql) {
    // $1 scope, $2 pack id, $3 created at; then 7 parameters per row.
    const tuples = Array.from({ length: rows }, (_, r) => {
      const n = 3 + 7 * (r + 1);
      return `($1, $${n - 6}, $${n - 5}, $2, $${n - 4}, $${n - 3}, $3, $${n - 2}, $${n - 1}, $${n})`;
    });
    sql =
      // A condemned row (garbage collection found it unreferenced) is replaced by the fresh copy: ingest
      // does not deduplicate against condemned rows, so whoever wrote this copy is about to reference it.
      `INSERT INTO chunk_index (scope, chunk_id, codec, pack_id, pack_offset, stored_length, created_at, frame_length, frame_skip, raw_length) VALUES ${tuples.join(', ')}
         ON CONFLICT (scope, chunk_id, codec) DO UPDATE SET pack_id = excluded.pack_id, pack_offset = excluded.pack_offset,
           stored_length = excluded.stored_length, created_at = excluded.created_at, condemned_at = NULL,
           frame_length = excluded.frame_length, frame_skip = excluded.frame_skip, raw_length = excluded.raw_length
         WHERE chunk_index.condemned_at IS NOT NULL
         RETURNING chunk_id, codec`;
    insertSql.set(rows, sql);
  }
  return sql;
}

/** `count` split into statement sizes from `sizes` (largest first), so that few distinct statements are prepared. */
function batchSizes(count: number, sizes: readonly number[]): number[] {
  const out: number[] = [];
  let left = count;
  for (const size of sizes) {
    while (left >= size) {
      out.push(size);
      left -= size;
    }
  }
  return out;
}

/** The statement sizes a pack of `entries` entries is inserted with (exported for tests). */
export function indexInsertBatches(entries: number): number[] {
  return batchSizes(entries, INSERT_BATCH_SIZES);
}

/** Chunk ids per lookup statement of {@link ChunkPackRepository.locateMany}, largest first (as for inserts). */
const LOCATE_BATCH_SIZES = [32, 16, 8, 4, 2, 1] as const;

const locateSql = new Map<number, string>();
function locateManySql(ids: number): string {
  let sql = locateSql.get(ids);
  if (!sql) {
    const list = Array.from({ length: ids }, (_, i) => `$${i + 2}`).join(', ');
    sql = `SELECT chunk_id, ${LOCATION_COLUMNS} FROM chunk_index WHERE scope = $1 AND chunk_id IN (${list})`;
    locateSql.set(ids, sql);
  }
  return sql;
}

/**
 * A chunk inside a frame (migration 119, decision 157): the frame's payload is
 * `frame_length` bytes at `pack_offset`; the chunk is `raw_length` bytes at
 * `frame_skip` of the decoded frame. `stored_length` is then the chunk's share
 * of the payload.
 */
export interface FrameColumns {
  frame_length: number;
  frame_skip: number;
  raw_length: number;
}

export interface ChunkLocation {
  pack_id: string;
  pack_offset: number;
  stored_length: number;
  codec: 'raw' | 'zstd';
  frame?: FrameColumns;
}

export interface PackEntryRow {
  chunk_id: string;
  codec: 'raw' | 'zstd';
  pack_offset: number;
  stored_length: number;
  frame?: FrameColumns;
}

/** One index row as garbage collection's sweep names it. */
export interface SweepRow {
  scope: string;
  chunk_id: string;
  codec: string;
  stored_length: number;
}

export interface PackRow {
  pack_id: string;
  scope: string;
  size_bytes: number;
  entry_count: number;
  created_at: string;
  /** When recompression wrote or tried the pack (decision 207); null or absent: never. */
  recompressed_at?: string | null;
}

/** A pack with the bytes its live (indexed) entries occupy, for garbage collection. */
export interface PackUsageRow extends PackRow {
  live_entries: number;
  live_bytes: number;
  /** Live chunks inside frames. */
  framed_entries: number;
  /** Stored bytes of live chunks compressed alone with zstd (what recompression can densify). */
  loose_zstd_bytes: number;
}

function frameOf(row: Record<string, unknown>): FrameColumns | undefined {
  if (row['frame_length'] === null || row['frame_length'] === undefined) return undefined;
  return { frame_length: Number(row['frame_length']), frame_skip: Number(row['frame_skip']), raw_length: Number(row['raw_length']) };
}

function location(row: Record<string, unknown>): ChunkLocation {
  const loc: ChunkLocation = { pack_id: String(row['pack_id']), pack_offset: Number(row['pack_offset']), stored_length: Number(row['stored_length']), codec: row['codec'] as 'raw' | 'zstd' };
  const frame = frameOf(row);
  if (frame) loc.frame = frame;
  return loc;
}

const LOCATION_COLUMNS = 'pack_id, pack_offset, stored_length, codec, frame_length, frame_skip, raw_length';

export class ChunkPackRepository {
  readonly #db: Db;
  constructor(db: Db) {
    this.#db = db;
  }

  /**
   * Records a durable pack and indexes its entries, in one transaction.
   * Entries whose (scope, chunk, codec) is already indexed keep their old row
   * (the first writer wins). One transaction, so garbage collection never
   * sees the pack row without its entries: it would take such a pack for an
   * empty one and delete it, and the index rows inserted next would name a
   * pack that is gone (they relied on a 5-minute minimum pack age before).
   * @returns the entries (`<chunk id>.<codec>`) that became the indexed copy
   */
  async insertPack(pack: PackRow, entries: readonly PackEntryRow[]): Promise<Set<string>> {
    return this.#db.transaction((tx) => this.#insertPack(tx, pack, entries));
  }

  async #insertPack(db: Db, pack: PackRow, entries: readonly PackEntryRow[]): Promise<Set<string>> {
    await db.run('INSERT INTO chunk_packs (pack_id, scope, size_bytes, entry_count, created_at) VALUES ($1, $2, $3, $4, $5)', [
      pack.pack_id,
      pack.scope,
      pack.size_bytes,
      pack.entry_count,
      pack.created_at,
    ]);
    const won = new Set<string>();
    let start = 0;
    for (const size of indexInsertBatches(entries.length)) {
      const params: Array<string | number | null> = [pack.scope, pack.pack_id, pack.created_at];
      for (const e of entries.slice(start, start + size)) {
        params.push(e.chunk_id, e.codec, e.pack_offset, e.stored_length, e.frame?.frame_length ?? null, e.frame?.frame_skip ?? null, e.frame?.raw_length ?? null);
      }
      start += size;
      const inserted = await db.all<{ chunk_id: string; codec: string }>(indexInsertSql(size), params);
      for (const r of inserted) won.add(`${r.chunk_id}.${r.codec}`);
    }
    return won;
  }

  /** Where one stored form lives, or undefined. */
  async locate(scope: string, chunkId: string, codec: 'raw' | 'zstd'): Promise<ChunkLocation | undefined> {
    const row = await this.#db.get(`SELECT ${LOCATION_COLUMNS} FROM chunk_index WHERE scope = $1 AND chunk_id = $2 AND codec = $3`, [scope, chunkId, codec]);
    return row ? location(row) : undefined;
  }

  /**
   * Where each of `keys` lives, in order (undefined where not indexed): one
   * query per {@link LOCATE_BATCH_SIZES} group instead of one per chunk —
   * a restore's read-ahead looks its runs up this way (decision 199).
   */
  async locateMany(scope: string, keys: ReadonlyArray<{ chunkId: string; codec: 'raw' | 'zstd' }>): Promise<Array<ChunkLocation | undefined>> {
    const found = new Map<string, ChunkLocation>();
    const ids = [...new Set(keys.map((k) => k.chunkId))];
    let start = 0;
    for (const size of batchSizes(ids.length, LOCATE_BATCH_SIZES)) {
      const batch = ids.slice(start, start + size);
      start += size;
      const rows = await this.#db.all<Record<string, unknown>>(locateManySql(size), [scope, ...batch]);
      for (const row of rows) found.set(`${String(row['chunk_id'])}.${String(row['codec'])}`, location(row));
    }
    return keys.map((k) => found.get(`${k.chunkId}.${k.codec}`));
  }

  /** Every indexed form of a chunk that may be deduplicated against (zero, one or two rows; condemned rows are left out). */
  async locateForms(scope: string, chunkId: string): Promise<ChunkLocation[]> {
    const rows = await this.#db.all(`SELECT ${LOCATION_COLUMNS} FROM chunk_index WHERE scope = $1 AND chunk_id = $2 AND condemned_at IS NULL`, [scope, chunkId]);
    return rows.map(location);
  }

  /** Drops one index row; true when it existed. The pack bytes become dead space. */
  async deleteEntry(scope: string, chunkId: string, codec: 'raw' | 'zstd'): Promise<boolean> {
    const { changes } = await this.#db.run('DELETE FROM chunk_index WHERE scope = $1 AND chunk_id = $2 AND codec = $3', [scope, chunkId, codec]);
    return changes > 0;
  }

  /**
   * Points an entry at a copy in another pack (repacking), only if it still
   * points at `fromPack`; false when it moved or was deleted meanwhile.
   */
  async relocate(scope: string, chunkId: string, codec: 'raw' | 'zstd', fromPack: string, to: { pack_id: string; pack_offset: number; stored_length: number }): Promise<boolean> {
    const { changes } = await this.#db.run(
      // The copy is unframed: frame columns are cleared.
      'UPDATE chunk_index SET pack_id = $5, pack_offset = $6, stored_length = $7, frame_length = NULL, frame_skip = NULL, raw_length = NULL WHERE scope = $1 AND chunk_id = $2 AND codec = $3 AND pack_id = $4',
      [scope, chunkId, codec, fromPack, to.pack_id, to.pack_offset, to.stored_length],
    );
    return changes > 0;
  }

  /** Records a pack written by a repack (its entries are moved there with {@link relocate}). */
  async insertPackRow(pack: PackRow): Promise<void> {
    await this.#db.run('INSERT INTO chunk_packs (pack_id, scope, size_bytes, entry_count, created_at, recompressed_at) VALUES ($1, $2, $3, $4, $5, $6)', [
      pack.pack_id,
      pack.scope,
      pack.size_bytes,
      pack.entry_count,
      pack.created_at,
      pack.recompressed_at ?? null,
    ]);
  }

  /** Stamps a pack recompression tried and left as it was, so later runs do not try it again. */
  async markRecompressed(packId: string, at: string): Promise<void> {
    await this.#db.run('UPDATE chunk_packs SET recompressed_at = $2 WHERE pack_id = $1', [packId, at]);
  }

  /**
   * One page of garbage collection's sweep in one transaction (one commit,
   * not one per row): condemn, clear and delete as the conditional
   * statements above do.
   * @returns the bytes of the rows that were condemned and deleted, and how many
   */
  async sweepPage(at: string, page: { condemn: SweepRow[]; absolve: SweepRow[]; remove: Array<SweepRow & { condemned_at: string }> }): Promise<{ condemned: SweepRow[]; removed: SweepRow[] }> {
    return this.#db.transaction(async (tx) => {
      const condemned: SweepRow[] = [];
      const removed: SweepRow[] = [];
      for (const r of page.condemn) {
        const { changes } = await tx.run('UPDATE chunk_index SET condemned_at = $4 WHERE scope = $1 AND chunk_id = $2 AND codec = $3 AND condemned_at IS NULL', [r.scope, r.chunk_id, r.codec, at]);
        if (changes > 0) condemned.push(r);
      }
      for (const r of page.absolve) await tx.run('UPDATE chunk_index SET condemned_at = NULL WHERE scope = $1 AND chunk_id = $2 AND codec = $3', [r.scope, r.chunk_id, r.codec]);
      for (const r of page.remove) {
        const { changes } = await tx.run('DELETE FROM chunk_index WHERE scope = $1 AND chunk_id = $2 AND codec = $3 AND condemned_at = $4', [r.scope, r.chunk_id, r.codec, r.condemned_at]);
        if (changes > 0) removed.push(r);
      }
      return { condemned, removed };
    });
  }

  /** Moves a repacked pack's entries to their new places in one transaction; returns how many still pointed at `fromPack`. */
  async relocateAll(
    scope: string,
    fromPack: string,
    moves: ReadonlyArray<{ chunk_id: string; codec: string; pack_id: string; pack_offset: number; stored_length: number; frame?: FrameColumns }>,
  ): Promise<number> {
    return this.#db.transaction(async (tx) => {
      let moved = 0;
      for (const m of moves) {
        const { changes } = await tx.run(
          `UPDATE chunk_index SET pack_id = $5, pack_offset = $6, stored_length = $7, frame_length = $8, frame_skip = $9, raw_length = $10
           WHERE scope = $1 AND chunk_id = $2 AND codec = $3 AND pack_id = $4`,
          [scope, m.chunk_id, m.codec, fromPack, m.pack_id, m.pack_offset, m.stored_length, m.frame?.frame_length ?? null, m.frame?.frame_skip ?? null, m.frame?.raw_length ?? null],
        );
        moved += changes;
      }
      return moved;
    });
  }

  getPack(packId: string): Promise<PackRow | undefined> {
    return this.#db.get<PackRow>('SELECT * FROM chunk_packs WHERE pack_id = $1', [packId]).then((r) => (r ? { ...r, size_bytes: Number(r.size_bytes), entry_count: Number(r.entry_count) } : undefined));
  }

  /** Every pack with its live entries and bytes (garbage collection). */
  async packUsage(): Promise<PackUsageRow[]> {
    const rows = await this.#db.all<Record<string, unknown>>(
      `SELECT p.pack_id, p.scope, p.size_bytes, p.entry_count, p.created_at, p.recompressed_at, COUNT(i.chunk_id) AS live_entries, COALESCE(SUM(i.stored_length), 0) AS live_bytes,
         COUNT(i.frame_length) AS framed_entries,
         COALESCE(SUM(CASE WHEN i.codec = 'zstd' AND i.frame_length IS NULL THEN i.stored_length ELSE 0 END), 0) AS loose_zstd_bytes
       FROM chunk_packs p LEFT JOIN chunk_index i ON i.pack_id = p.pack_id
       GROUP BY p.pack_id, p.scope, p.size_bytes, p.entry_count, p.created_at, p.recompressed_at ORDER BY p.created_at, p.pack_id`,
    );
    return rows.map((r) => ({
      pack_id: String(r['pack_id']),
      scope: String(r['scope']),
      size_bytes: Number(r['size_bytes']),
      entry_count: Number(r['entry_count']),
      created_at: String(r['created_at']),
      recompressed_at: r['recompressed_at'] === null || r['recompressed_at'] === undefined ? null : String(r['recompressed_at']),
      live_entries: Number(r['live_entries']),
      live_bytes: Number(r['live_bytes']),
      framed_entries: Number(r['framed_entries']),
      loose_zstd_bytes: Number(r['loose_zstd_bytes']),
    }));
  }

  /** The live entries of one pack. */
  async entriesOf(packId: string): Promise<Array<PackEntryRow & { scope: string; created_at: string }>> {
    const rows = await this.#db.all<Record<string, unknown>>(
      'SELECT scope, chunk_id, codec, pack_offset, stored_length, created_at, frame_length, frame_skip, raw_length FROM chunk_index WHERE pack_id = $1 ORDER BY pack_offset, frame_skip',
      [packId],
    );
    return rows.map(indexRow);
  }

  /**
   * Every indexed form in pages ordered by key (garbage collection's sweep),
   * after `after` (exclusive).
   */
  async listEntries(after: { scope: string; chunk_id: string; codec: string } | undefined, limit: number): Promise<Array<PackEntryRow & { scope: string; pack_id: string; created_at: string; condemned_at: string | null }>> {
    const rows = after
      ? await this.#db.all<Record<string, unknown>>(
          `SELECT scope, chunk_id, codec, pack_id, pack_offset, stored_length, created_at, condemned_at FROM chunk_index
           WHERE (scope > $1) OR (scope = $1 AND chunk_id > $2) OR (scope = $1 AND chunk_id = $2 AND codec > $3)
           ORDER BY scope, chunk_id, codec LIMIT $4`,
          [after.scope, after.chunk_id, after.codec, limit],
        )
      : await this.#db.all<Record<string, unknown>>('SELECT scope, chunk_id, codec, pack_id, pack_offset, stored_length, created_at, condemned_at FROM chunk_index ORDER BY scope, chunk_id, codec LIMIT $1', [limit]);
    return rows.map((r) => ({
      ...indexRow(r),
      pack_id: String(r['pack_id']),
      condemned_at: r['condemned_at'] === null || r['condemned_at'] === undefined ? null : String(r['condemned_at']),
    }));
  }

  /** Forgets a pack that no index row points at any more; false when one still does (a racing relocation). */
  async deletePackIfEmpty(packId: string): Promise<boolean> {
    return this.#db.transaction(async (tx) => {
      const live = await tx.get<{ n: number }>('SELECT COUNT(*) AS n FROM chunk_index WHERE pack_id = $1', [packId]);
      if (Number(live?.n ?? 0) > 0) return false;
      const { changes } = await tx.run('DELETE FROM chunk_packs WHERE pack_id = $1', [packId]);
      return changes > 0;
    });
  }
}

/** The columns every chunk_index listing reads, typed. */
function indexRow(r: Record<string, unknown>): PackEntryRow & { scope: string; created_at: string } {
  const frame = frameOf(r);
  return {
    ...(frame ? { frame } : {}),
    scope: String(r['scope']),
    chunk_id: String(r['chunk_id']),
    codec: r['codec'] as 'raw' | 'zstd',
    pack_offset: Number(r['pack_offset']),
    stored_length: Number(r['stored_length']),
    created_at: String(r['created_at']),
  };
}
