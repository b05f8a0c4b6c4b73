/**
 * Per-claim analysis: evidence search, source labels, and the claim rows of
 * the footer. Source labels (S1, S2, ...) follow the order in which sources
 * first appear as a claim's evidence, then sources that only contradict a
 * claim; so `[1]` in an answer means "the first source of this footer".
 */
import type { CorpusRecord } from '../../corpus/corpus-record.ts';
import type { ClaimRow } from '../../schemas/attribution-response.ts';
import { textHash } from '../../footer/footer-hashes.ts';
import { claimPreview, type ClaimUnit } from '../claims/claim-units.ts';
import type { ClaimEvidence, EvidenceSearch, EvidenceWindow } from '../retrieval/evidence-search.ts';
import { confidenceLabel, PARTIAL_SUPPORT_FLOOR, supportStatus } from '../support-labels.ts';
import { readClaim } from '../support/claim-reading.ts';
import { forceFlags, mismatchFlags, type WarrantReader } from '../warrant/warrant-profile.ts';

export interface LabelledSource {
  label: string;
  role: 'evidence' | 'disagreement';
  source: CorpusRecord;
  /** Chunks the footer cites for this source, in first-use order. */
  chunkIds: string[];
}

export interface ClaimAnalysis {
  unit: ClaimUnit;
  evidence: ClaimEvidence;
  /** The evidence window used, when its support reaches the partial floor. */
  used: EvidenceWindow | undefined;
}

export interface AnalysedClaims {
  claims: ClaimAnalysis[];
  rows: ClaimRow[];
  sources: LabelledSource[];
}

/** `warrants` reads claim and evidence texts; the caller hands the same reader to the display rules. */
export function analyseClaims(units: readonly ClaimUnit[], search: EvidenceSearch, minSupportScore: number, warrants: WarrantReader): AnalysedClaims {
  const claims: ClaimAnalysis[] = units.map((unit) => {
    const evidence = search.search(readClaim(unit.text));
    const used = evidence.primary && evidence.primary.support >= PARTIAL_SUPPORT_FLOOR ? evidence.primary : undefined;
    return { unit, evidence, used };
  });

  const bySourceId = new Map<string, LabelledSource>();
  const label = (source: CorpusRecord, role: LabelledSource['role'], chunkId: string) => {
    let entry = bySourceId.get(source.source_id);
    if (!entry) {
      entry = { label: `S${bySourceId.size + 1}`, role, source, chunkIds: [] };
      bySourceId.set(source.source_id, entry);
    }
    if ((role === 'evidence' || entry.role === 'disagreement') && !entry.chunkIds.includes(chunkId)) entry.chunkIds.push(chunkId);
    return entry;
  };
  for (const c of claims) if (c.used) label(c.used.chunk.source, 'evidence', c.used.chunk.chunkId);
  for (const c of claims) {
    for (const [sourceId, conflict] of contradictions(c, minSupportScore)) {
      if (bySourceId.has(sourceId)) continue;
      const source = c.evidence.conflictSources.get(sourceId);
      if (source) label(source, 'disagreement', conflict.chunkId);
    }
  }

  const rows = claims.map((c, i) => claimRow(c, i, bySourceId, minSupportScore, warrants));
  return { claims, rows, sources: [...bySourceId.values()] };
}

/**
 * Sources that contradict the claim. A source that also states the claim
 * (a non-conflicting window at or above the minimum support) is not counted
 * as contradicting it: it discusses the point, it does not oppose it.
 */
function contradictions(c: ClaimAnalysis, minSupportScore: number) {
  return [...c.evidence.conflicts.entries()].filter(([id]) => (c.evidence.bestBySource.get(id)?.support ?? 0) < minSupportScore);
}

function labelNumber(label: string): number {
  return Number(label.slice(1));
}

function claimRow(c: ClaimAnalysis, index: number, bySourceId: Map<string, LabelledSource>, minSupportScore: number, warrants: WarrantReader): ClaimRow {
  const claimReading = warrants.read(c.unit.text);
  // Copies: the reader's profiles are shared by every claim and span with the same text.
  const claimProfile = { ...claimReading.profile };
  const support = c.used?.support ?? 0;
  const status = supportStatus(support, minSupportScore);
  const sourceEntry = c.used ? bySourceId.get(c.used.chunk.source.source_id) : undefined;
  const agreement = [...c.evidence.bestBySource.entries()]
    .filter(([id, w]) => w.support >= minSupportScore && bySourceId.get(id)?.role === 'evidence')
    .map(([id]) => bySourceId.get(id)!.label)
    .sort((a, b) => labelNumber(a) - labelNumber(b));
  const conflicts = contradictions(c, minSupportScore).filter(([id]) => bySourceId.has(id));
  const disagreement = conflicts.map(([id]) => bySourceId.get(id)!.label).sort((a, b) => labelNumber(a) - labelNumber(b));
  const evidenceText = c.used?.text ?? null;
  const evidenceReading = evidenceText === null ? null : warrants.read(evidenceText);
  const evidenceProfile = evidenceReading === null ? null : { ...evidenceReading.profile };
  // The source's title is shown with the evidence (the footer's source row): its figures count as on display.
  const mismatch = evidenceReading === null ? [] : mismatchFlags(claimReading, evidenceReading, sourceEntry ? warrants.read(sourceEntry.source.title) : undefined);
  return {
    label: `C${index + 1}`,
    claim_hash: c.unit.hash,
    claim_preview: claimPreview(c.unit.text),
    support_status: status,
    support_score: support,
    confidence_label: confidenceLabel(support),
    source_label: sourceEntry?.label ?? null,
    source_id: sourceEntry?.source.source_id ?? null,
    work_id: sourceEntry?.source.work_id ?? null,
    chunk_id: c.used?.chunk.chunkId ?? null,
    evidence_span_hash: evidenceText === null ? null : textHash(evidenceText),
    evidence_start: c.used?.start ?? null,
    evidence_end: c.used?.end ?? null,
    evidence_preview: evidenceText,
    claim_warrant_profile: claimProfile,
    evidence_warrant_profile: evidenceProfile,
    claim_force_flags: forceFlags(claimProfile),
    evidence_force_flags: evidenceProfile === null ? [] : forceFlags(evidenceProfile),
    warrant_mismatch_flags: mismatch,
    warrant_strength_status: evidenceText === null ? 'no_evidence' : mismatch.length > 0 ? 'overstated' : 'matched',
    source_disagreement_profile: {
      agreement_count: agreement.length,
      disagreement_count: disagreement.length,
      negation_conflict_count: conflicts.filter(([, k]) => k.kind === 'negation').length,
      numeric_conflict_count: conflicts.filter(([, k]) => k.kind === 'numeric').length,
    },
    agreement_source_labels: agreement,
    disagreement_source_labels: disagreement,
    source_disagreement_status: disagreement.length > 0 ? 'contradicted' : 'consistent',
  };
}
