/**
 * Rules that read the answer text: 1 (citation markers), 2 (links),
 * 8 (temporal wording), 9 (claim units) and 10 (model reliance).
 */
import { isNormalizedAnswerText } from '../../engine/text/normalize.ts';
import type { Findings, RuleContext } from './rule-context.ts';
import type { RowFacts } from './source-row-checks.ts';

export function citationRule(ctx: RuleContext, facts: RowFacts[], f: Findings) {
  const verifiedSources = new Set(facts.filter((x) => x.verified).map((x) => x.row.label));
  const claimLabels = new Set(ctx.footer.claim_rows.map((c) => c.label));
  const markers = ctx.answer?.scan.citationMarkers ?? [];
  const resolved: string[] = [];
  const unresolved: string[] = [];
  for (const m of markers) {
    const ok = m.expandable && m.labels.length > 0 && m.labels.every((l) => (l.startsWith('S') ? verifiedSources.has(l) : claimLabels.has(l)));
    (ok ? resolved : unresolved).push(m.text);
    if (!ok) f.add('unresolved_citation_marker', `citation marker ${m.text} does not resolve to a verified source or claim row`, m.text);
  }
  return {
    answer_citation_marker_count: markers.length,
    resolved_answer_citation_marker_count: resolved.length,
    citation_marker_status: unresolved.length === 0 ? ('passed' as const) : ('failed' as const),
    answer_citation_markers: markers.map((m) => m.text),
    resolved_answer_citation_markers: resolved,
    unresolved_answer_citation_markers: unresolved,
  };
}

export function linkRule(ctx: RuleContext, facts: RowFacts[], f: Findings) {
  const verifiedUris = new Set(facts.filter((x) => x.verified).map((x) => x.row.uri));
  const uris = ctx.answer?.scan.linkUris ?? [];
  const resolved = uris.filter((u) => verifiedUris.has(u));
  const unresolved = uris.filter((u) => !verifiedUris.has(u));
  for (const u of unresolved) f.add('unresolved_answer_link', 'link in the answer is not a verified source_uri of the footer', u);
  return {
    answer_link_uris: uris,
    resolved_answer_link_uris: resolved,
    unresolved_answer_link_uris: unresolved,
    answer_link_uri_count: uris.length,
    resolved_answer_link_uri_count: resolved.length,
    unresolved_answer_link_uri_count: unresolved.length,
    answer_link_status: unresolved.length === 0 ? ('passed' as const) : ('failed' as const),
  };
}

export function temporalRule(ctx: RuleContext, f: Findings) {
  const markers = ctx.answer?.scan.temporalMarkers ?? [];
  const rows = ctx.footer.source_rows;
  const withFreshness = rows.filter((r) => r.published_at !== null || r.updated_at !== null);
  let failed = false;
  if (markers.length > 0) {
    if (rows.length === 0) {
      failed = true;
      f.add('temporal_claim_without_freshness', `temporal wording (${markers.join(', ')}) but no source row carries freshness metadata`);
    }
    for (const r of rows) {
      if (r.published_at === null && r.updated_at === null) {
        failed = true;
        f.add('temporal_claim_without_freshness', `temporal wording (${markers.join(', ')}) but source row ${r.label} has no freshness metadata`, r.label);
      }
    }
  }
  return {
    temporal_claim_markers: markers,
    source_temporal_metadata_count: withFreshness.length,
    temporal_grounding_status: failed ? ('failed' as const) : ('passed' as const),
  };
}

export function claimCoverageRule(ctx: RuleContext, f: Findings) {
  const units = ctx.answer?.units ?? [];
  const rows = ctx.footer.claim_rows;
  const rowHashes = rows.map((r) => r.claim_hash);
  const unitHashes = units.map((u) => u.hash);
  const uncovered = unitHashes.filter((h) => !rowHashes.includes(h));
  const extra = rowHashes.filter((h) => !unitHashes.includes(h));
  const sameSequence = rowHashes.length === unitHashes.length && rowHashes.every((h, i) => h === unitHashes[i]);
  // The engine attributes the normal form of an answer (NFKC, no bidi or zero-width controls); a text
  // that is not in it was not what the rules read, or hides something from the reader.
  if (ctx.answer && !isNormalizedAnswerText(ctx.answer.text)) {
    f.add('answer_not_normalized', 'the answer text holds invisible controls or is not in Unicode normal form NFKC');
  }
  if (ctx.answer && units.length === 0) f.add('no_claim_units', 'the answer has no claim units to attribute');
  if (ctx.answer && !sameSequence) {
    f.add('claim_units_mismatch', `answer claim units and footer claim rows differ (${uncovered.length} uncovered, ${extra.length} extra)`);
  }
  return {
    answer_claim_unit_count: units.length,
    answer_claim_row_coverage_count: unitHashes.filter((h) => rowHashes.includes(h)).length,
    uncovered_answer_claim_hashes: uncovered,
    extra_claim_row_hashes: extra,
    answer_claim_coverage_status: ctx.answer && sameSequence && units.length > 0 ? ('passed' as const) : ('failed' as const),
  };
}

export function modelRelianceRule(ctx: RuleContext, f: Findings) {
  const markers = ctx.answer?.scan.modelRelianceMarkers ?? [];
  for (const m of markers) f.add('model_reliance_claim', 'the answer claims hidden model use or source influence beyond observable support', m);
  return {
    model_reliance_claim_markers: markers,
    model_reliance_claim_marker_count: markers.length,
    model_reliance_claim_status: markers.length === 0 ? ('passed' as const) : ('failed' as const),
  };
}
