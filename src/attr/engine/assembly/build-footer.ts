/**
 * Builds the source footer in two passes. The draft has every field except
 * the verdicts and hashes; the display rules run on it; then the status,
 * settlement statuses, disclosures, row hashes, footer hash and rendered text
 * are fixed.
 */
import type {
  AcceptancePolicy, AuditError, ClaimRow, GroundingVerdictValue, SettlementStatusValue, SourceFooter, SourceRow, UsageEvent,
} from '../../schemas/attribution-response.ts';
import { FOOTER_SCHEMA_ID } from '../../schemas/attribution-response.ts';
import { CONTENT_HASH_PREFIX_LENGTH, verificationHandle } from '../../footer/handles.ts';
import { footerHash, rowHash, sealRow } from '../../footer/footer-hashes.ts';
import type { FooterSigner } from '../../footer/footer-signature.ts';
import { renderClaimRows, renderFooter } from '../../footer/render-footer.ts';
import { ALLOCATION_METHOD, USAGE_METRIC_METHODS, USAGE_METRIC_PROFILE, USAGE_METRIC_SCOPE } from '../../footer/usage-metrics.ts';
import type { Allocation } from '../royalty/allocation.ts';
import type { ClaimAnalysis, LabelledSource } from './analyse-claims.ts';

const round4 = (x: number) => Math.round(x * 10000) / 10000;

/**
 * Row and footer hash of a draft. Settlement statuses (part of every row)
 * and the verdicts are only known after the rules, so the hashes are
 * computed once, in `finalizeFooter`; the engine tells the rules that the
 * draft is intact by construction (RuleContext.integrityByConstruction).
 */
const DRAFT_HASH = '0'.repeat(64);

function sourceRow(s: LabelledSource, claims: ClaimAnalysis[], claimRows: ClaimRow[], allocation: Allocation, event: UsageEvent, sealRows: boolean): SourceRow {
  const supportedIdx = claimRows.flatMap((c, i) => (c.source_label === s.label && c.support_status === 'supported' ? [i] : []));
  const mean = (xs: number[]) => (xs.length === 0 ? 0 : round4(xs.reduce((a, b) => a + b, 0) / xs.length));
  const line = allocation.lines.find((l) => l.label === s.label)!;
  const prefix = s.source.content_sha256.slice(0, CONTENT_HASH_PREFIX_LENGTH);
  const row: Omit<SourceRow, 'row_hash'> = {
    label: s.label,
    role: s.role,
    source_id: s.source.source_id,
    work_id: s.source.work_id,
    title: s.source.title,
    uri: s.source.uri,
    verify: verificationHandle(event.event_id, event.event_hash, s.label, prefix),
    hash: s.source.content_sha256,
    content_hash_prefix: prefix,
    chunk_ids: s.chunkIds,
    rights_holder_id: s.source.rights_holder?.id ?? null,
    royalty_eligible: s.source.royalty_terms.royalty_eligible,
    published_at: s.source.published_at,
    updated_at: s.source.updated_at,
    supported_claim_hashes: supportedIdx.map((i) => claimRows[i]!.claim_hash),
    support: mean(supportedIdx.map((i) => claimRows[i]!.support_score)),
    text_match: mean(supportedIdx.map((i) => claims[i]!.used!.textMatch)),
    weight: line.weight,
    payout: line.amount,
    settlement_status: 'withheld',
    usage_metric_profile: USAGE_METRIC_PROFILE,
    usage_metric_scope: USAGE_METRIC_SCOPE,
    usage_metric_methods: { ...USAGE_METRIC_METHODS },
  };
  return { ...row, row_hash: sealRows ? rowHash(row) : DRAFT_HASH };
}

/** A draft footer, with the rendering of its claim rows (the final footer renders the same rows). */
export interface DraftFooter {
  footer: SourceFooter;
  claimLines: readonly string[];
}

/** `sealRows`: give the draft's rows their real hashes, for rules that re-derive the draft's integrity. */
export function draftFooter(
  sources: LabelledSource[], claims: ClaimAnalysis[], claimRows: ClaimRow[], allocation: Allocation, event: UsageEvent, policy: AcceptancePolicy,
  sealRows = false,
): DraftFooter {
  const draft: Omit<SourceFooter, 'rendered_text' | 'footer_hash' | 'signature'> = {
    schema: FOOTER_SCHEMA_ID,
    event_id: event.event_id,
    event_hash: event.event_hash,
    status: 'blocked',
    grounding_verdict: 'ungrounded',
    attribution_gap_verdict: 'open',
    blocking_rules: [],
    disclosures: [],
    acceptance_policy: policy,
    royalty: {
      gross_revenue: event.gross_revenue,
      distributable_total: event.distributable_total,
      amount_scale: event.amount_scale,
      allocation_method: ALLOCATION_METHOD,
      escrow_weight: allocation.escrow.weight,
      escrow_amount: allocation.escrow.amount,
      escrow_settlement_status: 'escrow',
      escrow_claim_hashes: claimRows
        .filter((c) => c.support_status !== 'supported' || !isPayable(sources.find((s) => s.label === c.source_label)))
        .map((c) => c.claim_hash),
    },
    source_rows: sources.map((s) => sourceRow(s, claims, claimRows, allocation, event, sealRows)),
    claim_rows: claimRows,
  };
  const claimLines = renderClaimRows(claimRows);
  return { footer: seal(draft, claimLines, true), claimLines };
}

function isPayable(s: LabelledSource | undefined): boolean {
  return s !== undefined && s.source.rights_holder !== null && s.source.royalty_terms.royalty_eligible;
}

/** Settlement status of a row: see docs/attr-engine.md "Settlement status". */
export function settlementStatus(row: SourceRow, ready: boolean): SettlementStatusValue {
  const payable = row.rights_holder_id !== null && row.royalty_eligible;
  if (!payable && row.supported_claim_hashes.length > 0) return 'escrow';
  if (Number(row.payout) === 0) return 'zero_amount';
  return ready ? 'candidate' : 'withheld';
}

export function groundingVerdict(claimRows: ClaimRow[], errors: AuditError[]): GroundingVerdictValue {
  if (errors.length === 0) return 'grounded';
  const supported = claimRows.filter((c) => c.support_status === 'supported').length;
  if (supported === 0) return 'ungrounded';
  if (supported < claimRows.length) return 'partially_grounded';
  return 'display_unsafe';
}

/** `signer`: the operator's footer signing key, when the deployment signs footers. */
export function finalizeFooter({ footer: draft, claimLines }: DraftFooter, errors: AuditError[], gapClosed: boolean, signer?: FooterSigner): SourceFooter {
  const ready = errors.length === 0;
  // Each row is serialized once: for its row hash, and (reused) inside the footer hash.
  const rowJson = new Map<object, string>();
  const rows = draft.source_rows.map((r) => {
    const { row_hash: _h, ...rest } = { ...r, settlement_status: settlementStatus(r, ready) };
    const { row, canonical } = sealRow(rest);
    if (canonical !== undefined) rowJson.set(row, canonical);
    return row;
  });
  const blockingRules = [...new Set(errors.map((e) => e.rule))].sort((a, b) => a - b);
  const { rendered_text: _t, footer_hash: _f, signature: _s, ...rest } = draft;
  return seal(
    {
      ...rest,
      status: ready ? 'ready' : 'blocked',
      grounding_verdict: groundingVerdict(draft.claim_rows, errors),
      attribution_gap_verdict: gapClosed ? 'closed' : 'open',
      blocking_rules: blockingRules,
      disclosures: disclosures(errors),
      source_rows: rows,
    },
    claimLines,
    false,
    rowJson,
    signer,
  );
}

/** One line per failing rule: its number, the first finding, and how many more. */
export function disclosures(errors: AuditError[]): string[] {
  const byRule = new Map<number, AuditError[]>();
  for (const e of errors) byRule.set(e.rule, [...(byRule.get(e.rule) ?? []), e]);
  return [...byRule.entries()]
    .sort(([a], [b]) => a - b)
    .map(([rule, list]) => `rule ${rule}: ${list[0]!.message}${list.length > 1 ? ` (+${list.length - 1} more)` : ''}`);
}

/**
 * Adds footer hash, signature and rendered text. A draft only needs its
 * rendering (the rules check what the rendered rows show), so its hash is
 * left as zeros and it is never signed.
 */
function seal(
  footer: Omit<SourceFooter, 'rendered_text' | 'footer_hash' | 'signature'>, claimLines: readonly string[], draft = false, rowJson?: ReadonlyMap<object, string>,
  signer?: FooterSigner,
): SourceFooter {
  const hash = draft ? DRAFT_HASH : footerHash(footer, rowJson);
  const withHash = { ...footer, footer_hash: hash, signature: draft || signer === undefined ? null : signer.sign(hash) };
  return { ...withHash, rendered_text: renderFooter(withHash, claimLines) };
}
