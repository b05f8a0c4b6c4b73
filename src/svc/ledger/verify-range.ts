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
    // [seq, id, prev_hash, hash, canonical body built by the database] (LedgerRepository.scanBodies).
    const rows = await repo.scanBodies(after, toSeq, PAGE);
    if (rows.length === 0) break;
    for (const r of rows) {
      const seq = Number(r[0]);
      const prevHash = r[2] as string;
      const hash = r[3] as string;
      if (verifier === undefined) {
        firstPrevHash = prevHash;
        firstEventId = r[1] as string;
        firstSeq = seq;
        verifier = new ChainVerifier(firstPrevHash, seq);
      }
      let ok = verifier.push({ position: seq, prevHash, hash, canonicalBody: r[4] as string });
      // Before calling a row broken, rebuild its body in JS from the columns: only a real change breaks the chain.
      if (!ok && verifier.report().firstBreak?.kind === 'entry_hash_mismatch') ok = await recheckInJs(repo, seq, verifier);
      if (!ok && badId === undefined) {
        badId = r[1] as string;
        break;
      }
      lastHash = hash;
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

/**
 * The row's hash did not match the database-built body: recompute it from the stored columns with
 * `canonicalEventBody`. When that matches, the difference was only in escaping and the verifier is rebuilt past
 * the row; when it does not, the row really changed.
 */
async function recheckInJs(repo: LedgerRepository, seq: number, verifier: ChainVerifier): Promise<boolean> {
  const r = (await repo.scanValues(seq - 1, 1))[0];
  if (!r || Number(r[0]) !== seq) return false;
  const body = canonicalEventBody({
    seq, id: r[1] as string, ts: r[2] as string, type: r[3] as string, tenant: r[4] as string | null, actor: r[5] as string,
    work_unit_id: r[6] as string | null, manifest_id: r[7] as string | null, policy_bundle_id: r[8] as string | null, trace_id: r[9] as string | null, payload: r[10] as string,
  });
  return verifier.retry({ position: seq, prevHash: r[11] as string, hash: r[12] as string, canonicalBody: body });
}
