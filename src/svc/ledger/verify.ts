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
    const rows = await repo.scanValues(after, PAGE);
    if (rows.length === 0) break;
    for (const r of rows) {
      // Column order is LEDGER_COLUMNS: seq, id, ts, type, tenant, actor, work_unit_id, manifest_id, policy_bundle_id, trace_id, payload, prev_hash, hash.
      const row = {
        seq: Number(r[0]), id: r[1] as string, ts: r[2] as string, type: r[3] as string, tenant: r[4] as string | null, actor: r[5] as string,
        work_unit_id: r[6] as string | null, manifest_id: r[7] as string | null, policy_bundle_id: r[8] as string | null, trace_id: r[9] as string | null, payload: r[10] as string,
      };
      const ok = verifier.push({ position: row.seq, prevHash: r[11] as string, hash: r[12] as string, canonicalBody: canonicalEventBody(row) });
      if (!ok && badId === undefined) badId = row.id;
    }
    after = Number(rows[rows.length - 1]![0]);
    if (badId !== undefined) break;
  }
  const report: LedgerVerifyReport = { ...verifier.report(), duration_ms: Math.round(performance.now() - started) };
  if (badId !== undefined) report.first_bad_event_id = badId;
  return report;
}
