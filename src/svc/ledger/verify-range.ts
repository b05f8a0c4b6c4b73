/**
 * Verifies the rows of one range of the ledger chain, seq in [fromSeq, toSeq]:
 * no gap between its rows, every prev_hash links to the previous row, every
 * hash recomputes. The range's first row is taken as given (its seq and
 * prev_hash); the caller stitches ranges together: range k's first row must
 * follow range k−1's last row in seq and hash. Runs in the main thread or in
 * a verify worker.
 */
import { ChainVerifier, type ChainBreak } from '../../core/hash-chain.ts';
import type { LedgerRepository } from '../store/repositories/ledger.ts';
import { canonicalEventBody } from './event.ts';

const PAGE = 20_000;

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
  let verifier: ChainVerifier | undefined;
  let firstPrevHash: string | null = null;
  let firstEventId: string | null = null;
  let firstSeq: number | null = null;
  let lastSeq: number | null = null;
  let lastHash: string | null = null;
  let badId: string | undefined;
  let after = fromSeq - 1;
  while (after < toSeq && badId === undefined) {
    const rows = await repo.scanValues(after, Math.min(PAGE, toSeq - after));
    if (rows.length === 0) break;
    for (const r of rows) {
      // Column order is LEDGER_COLUMNS: seq, id, ts, type, tenant, actor, work_unit_id, manifest_id, policy_bundle_id, trace_id, payload, prev_hash, hash.
      const seq = Number(r[0]);
      if (seq > toSeq) break;
      if (verifier === undefined) {
        firstPrevHash = r[11] as string;
        firstEventId = r[1] as string;
        firstSeq = seq;
        verifier = new ChainVerifier(firstPrevHash, seq);
      }
      const ok = verifier.push({
        position: seq,
        prevHash: r[11] as string,
        hash: r[12] as string,
        canonicalBody: canonicalEventBody({
          seq, id: r[1] as string, ts: r[2] as string, type: r[3] as string, tenant: r[4] as string | null, actor: r[5] as string,
          work_unit_id: r[6] as string | null, manifest_id: r[7] as string | null, policy_bundle_id: r[8] as string | null, trace_id: r[9] as string | null, payload: r[10] as string,
        }),
      });
      if (!ok && badId === undefined) {
        badId = r[1] as string;
        break;
      }
      lastHash = r[12] as string;
      lastSeq = seq;
    }
    after = Number(rows[rows.length - 1]![0]);
  }
  const report = verifier?.report();
  const result: RangeResult = { fromSeq, toSeq, checked: report?.checked ?? 0, firstPrevHash, lastHash, firstEventId, firstSeq, lastSeq };
  if (report?.firstBreak) result.firstBreak = report.firstBreak;
  if (badId !== undefined) result.firstBadEventId = badId;
  return result;
}
