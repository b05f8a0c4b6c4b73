/**
 * The rendered source footer: the exact text clients show under the answer
 * and keep on copy and export. It is a pure function of the footer fields,
 * so verifiers re-render and compare byte for byte. Full hashes are shown
 * (claims, spans, event, footer) so a copy can be checked without the
 * private response.
 */
import type { ClaimRow, SourceFooter, SourceRow } from '../schemas/attribution-response.ts';

export type RenderableFooter = Omit<SourceFooter, 'rendered_text'>;

const quote = (s: string): string => JSON.stringify(s);

export function renderSourceRow(row: SourceRow): string[] {
  const freshness =
    row.published_at === null && row.updated_at === null
      ? 'freshness: none recorded'
      : `freshness: published ${row.published_at ?? 'unknown'} · updated ${row.updated_at ?? 'unknown'}`;
  return [
    `[${row.label}] ${row.title}${row.role === 'disagreement' ? ' (contradicting source)' : ''}`,
    `  uri: ${row.uri}`,
    `  verify: ${row.verify}`,
    `  hash: sha256:${row.content_hash_prefix} · work ${row.work_id} · chunks ${row.chunk_ids.join(', ') || 'none'}`,
    `  ${freshness}`,
    `  support ${row.support} · text_match ${row.text_match} · weight ${row.weight} · payout ${row.payout} (${row.settlement_status})`,
    `  metrics: ${row.usage_metric_profile} · scope ${row.usage_metric_scope} · methods support=${row.usage_metric_methods.support}, text_match=${row.usage_metric_methods.text_match}, weight=${row.usage_metric_methods.weight}, payout=${row.usage_metric_methods.payout}`,
  ];
}

export function renderClaimRow(claim: ClaimRow): string[] {
  const lines = [`[${claim.label}] ${claim.support_status} · support ${claim.support_score} (${claim.confidence_label}) · claim sha256:${claim.claim_hash}`];
  if (claim.source_label !== null && claim.evidence_preview !== null) {
    lines.push(
      `  source ${claim.source_label} · work ${claim.work_id} · chunk ${claim.chunk_id} · chars ${claim.evidence_start}-${claim.evidence_end} · span sha256:${claim.evidence_span_hash}`,
      `  evidence: ${quote(claim.evidence_preview)}`,
    );
  } else {
    lines.push('  no evidence found in the registered corpus');
  }
  const warrant = claim.warrant_mismatch_flags.length > 0 ? `${claim.warrant_strength_status} (${claim.warrant_mismatch_flags.join(', ')})` : claim.warrant_strength_status;
  const disagreement =
    claim.disagreement_source_labels.length > 0
      ? `${claim.source_disagreement_status} by ${claim.disagreement_source_labels.join(', ')}`
      : claim.source_disagreement_status;
  lines.push(`  warrant: ${warrant} · sources: ${disagreement}`);
  return lines;
}

/** The claim-evidence lines of a footer: each claim row's block, in order. */
export function renderClaimRows(claimRows: readonly ClaimRow[]): string[] {
  return claimRows.flatMap(renderClaimRow);
}

/**
 * `claimLines`: `renderClaimRows(footer.claim_rows)` when the caller already
 * has it (the engine renders the same claim rows in its draft and its final
 * footer).
 */
export function renderFooter(footer: RenderableFooter, claimLines: readonly string[] = renderClaimRows(footer.claim_rows)): string {
  const r = footer.royalty;
  const lines = [
    '── Sources (attr source footer) ──',
    `Status: ${footer.status} · grounding: ${footer.grounding_verdict} · attribution gap: ${footer.attribution_gap_verdict}`,
    `Event: ${footer.event_id} · event sha256:${footer.event_hash}`,
    ...footer.source_rows.flatMap(renderSourceRow),
    'Claim evidence:',
    ...claimLines,
    `Royalty: gross ${r.gross_revenue} · distributable ${r.distributable_total} · escrow ${r.escrow_amount} (weight ${r.escrow_weight}, ${r.escrow_settlement_status}) · candidate allocations, not payments`,
  ];
  if (footer.disclosures.length > 0) lines.push('Blocked because:', ...footer.disclosures.map((d) => `  - ${d}`));
  lines.push(`Footer: sha256:${footer.footer_hash}`);
  // The signature signs the footer hash, so it is shown after it (docs/decisions/136-signed-footers.md).
  if (footer.signature !== null) lines.push(`Signature: ${footer.signature.algorithm} · key ${footer.signature.key_id} · ${footer.signature.value}`);
  return lines.join('\n');
}
