/**
 * Does a footer's declared outcome follow from the rule findings? Status,
 * blocking rules, disclosures, verdicts and settlement statuses are all
 * functions of the findings; any difference means the footer was edited
 * (or produced by something other than this engine).
 */
import { canonicalJson } from '../../core/canonical-json.ts';
import type { AuditError, SourceFooter } from '../schemas/attribution-response.ts';
import { disclosures, groundingVerdict, settlementStatus } from '../engine/assembly/build-footer.ts';

export function footerOutcomeMatches(footer: SourceFooter, findings: AuditError[], gapClosed: boolean): boolean {
  const ready = findings.length === 0;
  const rules = [...new Set(findings.map((e) => e.rule))].sort((a, b) => a - b);
  return (
    footer.status === (ready ? 'ready' : 'blocked') &&
    canonicalJson(footer.blocking_rules) === canonicalJson(rules) &&
    canonicalJson(footer.disclosures) === canonicalJson(disclosures(findings)) &&
    footer.grounding_verdict === groundingVerdict(footer.claim_rows, findings) &&
    footer.attribution_gap_verdict === (gapClosed ? 'closed' : 'open') &&
    footer.royalty.escrow_settlement_status === 'escrow' &&
    footer.source_rows.every((r) => r.settlement_status === settlementStatus(r, ready))
  );
}
