/**
 * Verifies the whole ledger chain from the genesis hash: sequence continuity,
 * each prev_hash, each recomputed hash. Reports the first broken link.
 */
import { ChainVerifier, GENESIS_HASH, type ChainReport } from '../../core/hash-chain.ts';
import type { LedgerRepository } from '../store/repositories/ledger.ts';
import { canonicalEventBody } from './event.ts';

const PAGE = 20_000;

export interface LedgerVerifyReport extends ChainReport {
  duration_ms: number;
  first_bad_event_id?: string;
}

export async function verifyLedger(repo: LedgerRepository): Promise<LedgerVerifyReport> {
  const started = performance.now();
  const verifier = new ChainVerifier(GENESIS_HASH, 1);
  let after = 0;
  let badId: string | undefined;
  for (;;) {
    const rows = await repo.scan(after, PAGE);
    if (rows.length === 0) break;
    for (const row of rows) {
      const seq = Number(row.seq);
      const ok = verifier.push({ position: seq, prevHash: row.prev_hash, hash: row.hash, canonicalBody: canonicalEventBody({ ...row, seq }) });
      if (!ok && badId === undefined) badId = row.id;
    }
    after = Number(rows[rows.length - 1]!.seq);
    if (badId !== undefined) break;
  }
  const report: LedgerVerifyReport = { ...verifier.report(), duration_ms: Math.round(performance.now() - started) };
  if (badId !== undefined) report.first_bad_event_id = badId;
  return report;
}
