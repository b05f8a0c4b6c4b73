/**
 * Verifies the rows of one range of the ledger chain, seq in [fromSeq, toSeq]:
 * no gap between its rows, every prev_hash links to the previous row, every
 * hash recomputes. The range's first row is taken as given (its seq and
 * prev_hash); the caller stitches ranges together: range k's first row must
 * follow range k−1's last row in seq and hash. Runs in the main thread or in
 * a verify worker.
 *
 * Two paths, one verdict. The fast path reads `[seq, record, hash]` per row
 * (`LedgerRepository.scanRecords`: the database renders the exact text the hash
 * covers) and accepts a row only when its seq is the next one, its record
 * starts with the previous row's hash (the record is '' unless the stored
 * prev_hash is 64 bytes, so this is equality), and SHA-256 of the record is
 * the stored hash. Anything else sends that one row to the exact path, which
 * reads its columns, rebuilds the body in JS (`canonicalEventBody`, the
 * definition the appender hashes) and names the break — or, when the
 * database's rendering only differed in escaping, accepts the row and the
 * fast path goes on.
 */
import { hash as digest } from 'node:crypto';
import { type ChainBreak, chainHash } from '../../core/hash-chain.ts';
import type { LedgerRepository } from '../store/repositories/ledger.ts';
import { canonicalEventBody } from './event.ts';

/** Rows per read: large enough that statement overhead vanishes, small enough to bound memory. */
const PAGE = 10000;

/**
 * Every connection that verifies a SQLite ledger (the calling thread's own and each worker's) reads the file through a
 * memory map of up to this many bytes instead of one read system call per 4 KiB page: ~6–10% less CPU per event
 * (docs/ledger.md). The mapped pages count towards RSS only until the run closes its connections.
 */
export const VERIFY_MMAP_BYTES = 1 << 30;

export interface RangeResult {
  fromSeq: number;
  toSeq: number;
  checked: number;
  /** prev_hash of the range's first row (null: the range is empty). */
  firstPrevHash: string | null;
  /** hash of the range's last row that verified (null: none). */
  lastHash: string | null;
  /** id and seq of the range's first row (null: empty), to name a break at the range boundary. */
  firstEventId: string | null;
  firstSeq: number | null;
  /** seq of the last row that verified (null: none). */
  lastSeq: number | null;
  firstBreak?: ChainBreak;
  firstBadEventId?: string;
}

export async function verifyRange(repo: LedgerRepository, fromSeq: number, toSeq: number): Promise<RangeResult> {
  const result: RangeResult = { fromSeq, toSeq, checked: 0, firstPrevHash: null, lastHash: null, firstEventId: null, firstSeq: null, lastSeq: null };
  // The range's first row, whole: its seq, id and prev_hash start the walk.
  const head = (await repo.scanValues(fromSeq - 1, 1))[0];
  if (!head || Number(head[0]) > toSeq) return result;
  result.firstSeq = Number(head[0]);
  result.firstEventId = head[1] as string;
  result.firstPrevHash = head[11] as string;
  let expectedSeq = result.firstSeq;
  let expectedPrev = result.firstPrevHash;
  let checked = 0;
  const finish = (): RangeResult => {
    result.checked = checked;
    if (expectedSeq > result.firstSeq!) {
      result.lastHash = expectedPrev;
      result.lastSeq = expectedSeq - 1;
    }
    return result;
  };
  // Pages are read one ahead: on PostgreSQL the server renders the next page while this one is hashed.
  const read = (after: number) => {
    const limit = Math.min(PAGE, toSeq - after);
    return { limit, rows: repo.scanRecords(after, limit) };
  };
  let page: ReturnType<typeof read> | undefined = read(expectedSeq - 1);
  try {
    while (page) {
      const rows: unknown[][] = await page.rows;
      const last = rows.length > 0 ? Number(rows[rows.length - 1]![0]) : toSeq;
      page = rows.length === page.limit && last < toSeq ? read(last) : undefined;
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i]!;
        if ((row[0] as number) > toSeq) return finish(); // past a gap, into the next range
        const record = row[1] as string;
        const stored = row[2] as string;
        checked++;
        // Fast path: the next seq, linked to the previous hash, hashing to the stored hash. The link is compared as
        // `slice(0, 64) ===` rather than `startsWith`: V8's startsWith walks the 64 characters one at a time (~800
        // instructions, ~10% of a row's non-hashing CPU), the slice is a view and `===` compares it as a block. The
        // same test: a 64-character `expectedPrev` equals the record's first 64 characters (any other length never
        // matches, and that row takes the exact path, as before).
        if (row[0] === expectedSeq && record.slice(0, 64) === expectedPrev && digest('sha256', record, 'hex') === stored) {
          expectedPrev = stored;
          expectedSeq++;
          continue;
        }
        const verdict = await exactRow(repo, Number(row[0]), expectedSeq, expectedPrev);
        if (verdict !== undefined) {
          finish();
          result.firstBreak = verdict.firstBreak;
          result.firstBadEventId = verdict.id;
          return result;
        }
        expectedPrev = stored;
        expectedSeq++;
      }
      // SQLite answers synchronously: let the event loop run between pages (requests, and the workers' results).
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
    return finish();
  } finally {
    // A page read ahead and no longer needed must not become an unhandled rejection.
    page?.rows.catch(() => undefined);
  }
}

/**
 * The exact check of one row, from its stored columns: seq continuity, prev_hash, and the hash recomputed over the
 * body as `canonicalEventBody` builds it. Returns the break and the row's id, or undefined when the row holds.
 */
async function exactRow(repo: LedgerRepository, seq: number, expectedSeq: number, expectedPrev: string): Promise<{ firstBreak: ChainBreak; id: string } | undefined> {
  const r = (await repo.scanValues(seq - 1, 1))[0];
  if (!r || Number(r[0]) !== seq) throw new Error(`ledger row ${seq} disappeared while verifying`);
  const id = r[1] as string;
  if (seq !== expectedSeq) return { firstBreak: { kind: 'sequence_gap', position: seq, expected: expectedSeq, found: seq }, id };
  const prevHash = r[11] as string;
  if (prevHash !== expectedPrev) return { firstBreak: { kind: 'prev_hash_mismatch', position: seq, expected: expectedPrev, found: prevHash }, id };
  const body = canonicalEventBody({
    seq, id, ts: r[2] as string, type: r[3] as string, tenant: r[4] as string | null, actor: r[5] as string,
    work_unit_id: r[6] as string | null, manifest_id: r[7] as string | null, policy_bundle_id: r[8] as string | null, trace_id: r[9] as string | null, payload: r[10] as string,
  });
  const recomputed = chainHash(prevHash, body);
  if (recomputed !== r[12]) return { firstBreak: { kind: 'entry_hash_mismatch', position: seq, expected: recomputed, found: r[12] as string }, id };
  return undefined;
}
