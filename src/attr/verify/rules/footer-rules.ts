/**
 * Rules that read the footer (and the event when available): 3 (rows match
 * claim rows, spans reproduce), 4 (evidence force), 5 (contradicting
 * sources), 6 (handles), 7 (locators, usage metrics, event references),
 * 11 (claim evidence rows), 12 (claim ↔ source identity), 13 (coverage
 * closure) and 14 (royalty shares, minimum support).
 */
import { Decimal } from 'decimal.js';
import type { ClaimRow } from '../../schemas/attribution-response.ts';
import { textHash } from '../../footer/footer-hashes.ts';
import { renderClaimRow } from '../../footer/render-footer.ts';
import { USAGE_METRIC_METHODS, USAGE_METRIC_NAMES, USAGE_METRIC_PROFILE, USAGE_METRIC_SCOPE } from '../../footer/usage-metrics.ts';
import { allocate } from '../../engine/royalty/allocation.ts';
import { supportStatus, confidenceLabel } from '../../engine/support-labels.ts';
import { forceFlags, mismatchFlags, WarrantReader } from '../../engine/warrant/warrant-profile.ts';
import type { Findings, RuleContext } from './rule-context.ts';
import type { RowFacts } from './source-row-checks.ts';

const pass = (ok: boolean) => (ok ? ('passed' as const) : ('failed' as const));
const round4 = (x: number) => Math.round(x * 10000) / 10000;
/** Shallow equality of flat records and string lists: cheaper than canonical JSON on the hot path. */
const sameJson = (a: unknown, b: unknown): boolean => {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => {
    const va = (a as Record<string, unknown>)[k];
    const vb = (b as Record<string, unknown>)[k];
    return typeof va === 'object' && va !== null ? sameJson(va, vb) : va === vb;
  });
};

/** The full claim text when known: from the answer, or from a preview that is the whole claim. */
function claimText(ctx: RuleContext, claim: ClaimRow): string | undefined {
  const unit = ctx.answer?.units.find((u) => u.hash === claim.claim_hash);
  if (unit) return unit.text;
  return textHash(claim.claim_preview) === claim.claim_hash ? claim.claim_preview : undefined;
}

export function sourceClaimRowsRule(ctx: RuleContext, f: Findings) {
  const claims = ctx.footer.claim_rows;
  const built = ctx.integrityByConstruction === true;
  for (const row of ctx.footer.source_rows) {
    const mine = claims.filter((c) => c.source_label === row.label && c.support_status === 'supported');
    const hashes = mine.map((c) => c.claim_hash);
    const support = mine.length === 0 ? 0 : round4(mine.reduce((s, c) => s + c.support_score, 0) / mine.length);
    if (!sameJson(hashes, row.supported_claim_hashes) || support !== row.support) {
      f.add('source_row_claim_mismatch', `source row ${row.label} does not summarise the supported claim rows attributed to it`, row.label);
    }
  }
  let evidenceRows = 0;
  for (const c of claims) {
    if (c.evidence_preview === null) continue;
    const hashOk =
      (built || c.evidence_span_hash === textHash(c.evidence_preview)) &&
      c.evidence_start !== null && c.evidence_end !== null && c.evidence_end - c.evidence_start === c.evidence_preview.length;
    if (!hashOk) f.add('evidence_span_hash_mismatch', `evidence preview of ${c.label} does not reproduce its span hash and offsets`, c.label);
    if (c.support_status === 'supported' && !built && !ctx.footer.rendered_text.includes(`  evidence: ${JSON.stringify(c.evidence_preview)}\n`)) {
      f.add('evidence_preview_not_rendered', `evidence preview of ${c.label} is not in the rendered claim-evidence footer`, c.label);
    }
    if (hashOk) evidenceRows++;
  }
  return evidenceRows;
}

/** The reading of the title of the source row a claim cites (shown with its evidence), if the footer has that row. */
function titleOf(ctx: RuleContext, label: string | null, warrants: WarrantReader) {
  const row = label === null ? undefined : ctx.footer.source_rows.find((r) => r.label === label);
  return row === undefined ? undefined : warrants.read(row.title);
}

export function warrantRule(ctx: RuleContext, f: Findings) {
  const warrants = ctx.warrants ?? new WarrantReader();
  const profile = { matched: 0, overstated: 0, no_evidence: 0, mismatch_flags: {} as Record<string, number> };
  for (const c of ctx.footer.claim_rows) {
    profile[c.warrant_strength_status]++;
    for (const flag of c.warrant_mismatch_flags) profile.mismatch_flags[flag] = (profile.mismatch_flags[flag] ?? 0) + 1;
    const text = claimText(ctx, c);
    if (text !== undefined) {
      const claim = warrants.read(text);
      const p = claim.profile;
      const declaredOk = sameJson(p, c.claim_warrant_profile) && sameJson(forceFlags(p), c.claim_force_flags);
      const evidence = c.evidence_preview === null ? null : warrants.read(c.evidence_preview);
      const evidenceOk =
        evidence === null
          ? c.evidence_warrant_profile === null && c.evidence_force_flags.length === 0 && c.warrant_mismatch_flags.length === 0
          : sameJson(evidence.profile, c.evidence_warrant_profile) &&
            sameJson(forceFlags(evidence.profile), c.evidence_force_flags) &&
            sameJson(mismatchFlags(claim, evidence, titleOf(ctx, c.source_label, warrants)), c.warrant_mismatch_flags);
      if (!declaredOk || !evidenceOk) f.add('warrant_profile_mismatch', `declared warrant profile of ${c.label} does not match its claim and evidence text`, c.label);
    }
    const expectedStatus = c.evidence_preview === null ? 'no_evidence' : c.warrant_mismatch_flags.length > 0 ? 'overstated' : 'matched';
    if (c.warrant_strength_status !== expectedStatus) f.add('warrant_profile_mismatch', `warrant_strength_status of ${c.label} contradicts its mismatch flags`, c.label);
    if (c.support_status === 'supported' && c.warrant_mismatch_flags.length > 0) {
      f.add('warrant_force_mismatch', `evidence for ${c.label} does not carry the claim's force (${c.warrant_mismatch_flags.join(', ')})`, c.label);
    }
  }
  const supported = ctx.footer.claim_rows.filter((c) => c.support_status === 'supported');
  const strong = supported.filter((c) => c.warrant_strength_status === 'matched').length;
  return {
    claim_warrant_profile: profile,
    claim_warrant_strength_count: strong,
    claim_warrant_strength_status: pass(strong === supported.length),
  };
}

export function disagreementRule(ctx: RuleContext, f: Findings) {
  const visible = new Set(ctx.footer.source_rows.map((r) => r.label));
  const profile = { consistent: 0, contradicted: 0, negation_conflicts: 0, numeric_conflicts: 0 };
  let contradictedSupported = 0;
  for (const c of ctx.footer.claim_rows) {
    const p = c.source_disagreement_profile;
    profile[c.source_disagreement_status]++;
    profile.negation_conflicts += p.negation_conflict_count;
    profile.numeric_conflicts += p.numeric_conflict_count;
    const consistent =
      p.agreement_count === c.agreement_source_labels.length &&
      p.disagreement_count === c.disagreement_source_labels.length &&
      p.negation_conflict_count + p.numeric_conflict_count === p.disagreement_count &&
      (c.source_disagreement_status === 'contradicted') === c.disagreement_source_labels.length > 0 &&
      [...c.agreement_source_labels, ...c.disagreement_source_labels].every((l) => visible.has(l));
    if (!consistent) f.add('disagreement_profile_inconsistent', `source disagreement fields of ${c.label} are inconsistent`, c.label);
    const visibleContradictions = c.disagreement_source_labels.filter((l) => visible.has(l));
    if (c.support_status === 'supported' && visibleContradictions.length > 0) {
      contradictedSupported++;
      f.add('source_contradicts_claim', `visible source ${visibleContradictions.join(', ')} contradicts supported claim ${c.label}`, c.label);
    }
  }
  return {
    source_disagreement_profile: profile,
    claim_source_disagreement_count: contradictedSupported,
    claim_source_disagreement_status: pass(contradictedSupported === 0),
  };
}

export function handleRule(facts: RowFacts[], f: Findings) {
  for (const x of facts) {
    if (!x.handleValid) f.add('verification_handle_forged', `source row ${x.row.label} carries a verification handle that its event, label and content hash do not produce`, x.row.label);
    else if (!x.handleShown) f.add('verification_handle_missing', `source row ${x.row.label} does not show its verification handle`, x.row.label);
  }
}

export function locatorRule(ctx: RuleContext, facts: RowFacts[], f: Findings) {
  let locators = 0;
  let identities = 0;
  let metricRows = 0;
  let provenance = 0;
  for (const x of facts) {
    const r = x.row;
    if (x.locatorsShown && x.prefixValid) locators++;
    else f.add('source_locator_incomplete', `source row ${r.label} does not show its URI, verification handle and content-hash prefix`, r.label);
    const hasMetrics = USAGE_METRIC_NAMES.every((n) => r[n] !== undefined && r[n] !== null) && Number.isFinite(r.support) && Number.isFinite(r.text_match);
    if (hasMetrics) metricRows++;
    else f.add('usage_metric_missing', `source row ${r.label} lacks a required usage metric`, r.label);
    if (r.usage_metric_profile === USAGE_METRIC_PROFILE && r.usage_metric_scope === USAGE_METRIC_SCOPE && sameJson(r.usage_metric_methods, USAGE_METRIC_METHODS)) provenance++;
    else f.add('usage_metric_provenance_changed', `source row ${r.label} discloses a different usage-metric profile, scope or method`, r.label);
    const ref = ctx.event?.source_references.find((s) => s.label === r.label);
    const identityOk =
      x.handleValid && x.rowHashValid &&
      (ctx.event === undefined ||
        (ref !== undefined && ref.source_id === r.source_id && ref.work_id === r.work_id && ref.uri === r.uri && ref.content_sha256 === r.hash && ref.role === r.role));
    if (identityOk) identities++;
    else if (ctx.event !== undefined && !(ref && ref.source_id === r.source_id && ref.work_id === r.work_id && ref.uri === r.uri && ref.content_sha256 === r.hash && ref.role === r.role)) {
      f.add('source_reference_mismatch', `source row ${r.label} does not match the event's source reference`, r.label);
    }
  }
  const n = facts.length;
  return {
    source_usage_metric_names: [...USAGE_METRIC_NAMES],
    source_usage_metric_row_count: metricRows,
    source_usage_metric_status: pass(metricRows === n),
    source_usage_metric_profile: USAGE_METRIC_PROFILE,
    source_usage_metric_scope: USAGE_METRIC_SCOPE,
    source_usage_metric_methods: { ...USAGE_METRIC_METHODS },
    source_usage_metric_provenance_count: provenance,
    source_usage_metric_provenance_status: pass(provenance === n),
    source_row_count: n,
    source_locator_count: locators,
    source_locator_status: pass(locators === n),
    source_identity_count: identities,
    source_identity_status: pass(identities === n),
  };
}

export function claimEvidenceRule(ctx: RuleContext, f: Findings) {
  const supported = ctx.footer.claim_rows.filter((c) => c.support_status === 'supported');
  let visibleRows = 0;
  for (const c of supported) {
    if (c.source_label === null || c.evidence_span_hash === null || c.evidence_preview === null || c.evidence_start === null || c.evidence_end === null) {
      f.add('claim_evidence_row_missing', `supported claim ${c.label} has no claim-evidence row`, c.label);
      continue;
    }
    if (ctx.integrityByConstruction !== true && !ctx.footer.rendered_text.includes(renderClaimRow(c).slice(0, 3).join('\n'))) {
      f.add('claim_evidence_row_not_rendered', `the rendered footer does not show the claim-evidence row of ${c.label} as declared`, c.label);
      continue;
    }
    if (c.warrant_strength_status === 'overstated') {
      f.add('claim_overstated', `claim ${c.label} is worded more strongly than its evidence`, c.label);
      continue;
    }
    visibleRows++;
  }
  return { supported_claim_count: supported.length, claim_evidence_row_count: visibleRows, claim_evidence_status: pass(visibleRows === supported.length) };
}

export function claimSourceRule(ctx: RuleContext, f: Findings) {
  let matched = 0;
  const withSource = ctx.footer.claim_rows.filter((c) => c.source_label !== null);
  for (const c of withSource) {
    const row = ctx.footer.source_rows.find((r) => r.label === c.source_label);
    if (row && row.role === 'evidence' && row.source_id === c.source_id && row.work_id === c.work_id && c.chunk_id !== null && row.chunk_ids.includes(c.chunk_id)) matched++;
    else f.add('claim_source_mismatch', `claim ${c.label} names a source label, work id or chunk id that its source row does not show`, c.label);
  }
  return { claim_source_match_count: matched, claim_source_match_status: pass(matched === withSource.length) };
}

function labelSet(labels: Iterable<string>): string {
  return [...new Set(labels)].sort().join(',');
}

export function closureRule(ctx: RuleContext, f: Findings) {
  const footer = ctx.footer;
  const visible = footer.source_rows.map((r) => r.label);
  const consumed = ctx.event ? ctx.event.source_references.map((s) => s.label) : visible;
  const shares = ctx.event?.royalty_shares;
  const paid = shares ? shares.filter((s) => s.label !== 'escrow').map((s) => s.label) : visible;
  let closed = labelSet(consumed) === labelSet(visible) && labelSet(paid) === labelSet(visible) && new Set(visible).size === visible.length;
  if (closed && shares) {
    for (const r of footer.source_rows) {
      const s = shares.find((x) => x.label === r.label);
      if (!s || s.amount !== r.payout || s.weight !== r.weight) closed = false;
    }
    const escrow = shares.find((x) => x.label === 'escrow');
    if (!escrow || escrow.amount !== footer.royalty.escrow_amount || escrow.weight !== footer.royalty.escrow_weight) closed = false;
  }
  if (!closed) f.add('source_coverage_not_closed', "the event's consumed, visible and paid sources (and their shares) do not coincide");
  const claimsWithVisibleSource = footer.claim_rows.filter((c) => c.source_label !== null && visible.includes(c.source_label)).length;

  const credited = footer.source_rows.filter((r) => r.supported_claim_hashes.length > 0);
  const accessedNotCredited = footer.source_rows.length - credited.length;
  const uncovered = footer.claim_rows.filter((c) => c.support_status !== 'supported').length;
  const failures = { accessed_not_credited: accessedNotCredited, uncovered_claims: uncovered, coverage_not_closed: closed ? 0 : 1 };
  const failureCount = failures.accessed_not_credited + failures.uncovered_claims + failures.coverage_not_closed;
  const verdict = failureCount === 0 ? ('closed' as const) : ('open' as const);
  if (verdict === 'open') f.add('attribution_gap_open', `attribution gap open: ${accessedNotCredited} accessed source(s) not credited, ${uncovered} claim(s) without supported attribution`);
  return {
    closed,
    claim_source_closure_count: closed ? claimsWithVisibleSource : 0,
    claim_source_closure_status: pass(closed),
    attribution_gap_status: pass(verdict === 'closed'),
    attribution_gap_verdict: verdict,
    accessed_source_count: new Set(consumed).size,
    credited_source_count: credited.length,
    open_gap_failure_count: failureCount,
    open_gap_failures: failures,
  };
}

export function royaltyRule(ctx: RuleContext, f: Findings) {
  const { footer, policy } = ctx;
  let lowest: number | null = null;
  let belowMinimum = 0;
  for (const c of footer.claim_rows) {
    lowest = lowest === null ? c.support_score : Math.min(lowest, c.support_score);
    if (c.support_score < policy.min_support_score) {
      belowMinimum++;
      f.add('claim_support_below_minimum', `claim ${c.label} support ${c.support_score} is below the minimum ${policy.min_support_score}`, c.label);
    }
    if (c.support_status !== supportStatus(c.support_score, footer.acceptance_policy.min_support_score) || c.confidence_label !== confidenceLabel(c.support_score)) {
      f.add('support_status_inconsistent', `support status or confidence label of ${c.label} does not follow from its score`, c.label);
    }
  }
  const r = footer.royalty;
  let allocationOk = true;
  try {
    const expected = allocate(
      footer.source_rows.map((row) => ({ label: row.label, payable: row.rights_holder_id !== null && row.royalty_eligible })),
      footer.claim_rows.map((c) => ({ supported: c.support_status === 'supported', sourceLabel: c.source_label })),
      r.distributable_total,
      r.amount_scale,
    );
    allocationOk =
      r.distributable_total === r.gross_revenue &&
      expected.escrow.amount === r.escrow_amount &&
      expected.escrow.weight === r.escrow_weight &&
      footer.source_rows.every((row, i) => expected.lines[i]!.amount === row.payout && expected.lines[i]!.weight === row.weight);
  } catch {
    allocationOk = false;
  }
  if (!allocationOk) f.add('royalty_allocation_mismatch', 'weights or payouts differ from the largest-remainder allocation of the claim rows');
  let nonEscrow = '0';
  try {
    nonEscrow = new Decimal(1).sub(new Decimal(r.escrow_weight)).toFixed(6);
  } catch {
    allocationOk = false;
  }
  const shareOk = Number(nonEscrow) >= policy.min_non_escrow_share;
  if (!shareOk) f.add('non_escrow_share_below_minimum', `non-escrow royalty share ${nonEscrow} is below the minimum ${policy.min_non_escrow_share}`);
  return {
    min_support_score: policy.min_support_score,
    lowest_claim_support_score: lowest,
    minimum_support_status: pass(belowMinimum === 0 && footer.claim_rows.length > 0),
    non_escrow_share: nonEscrow,
    min_non_escrow_share: policy.min_non_escrow_share,
    royalty_share_status: pass(shareOk && allocationOk),
  };
}
