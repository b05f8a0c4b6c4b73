/**
 * Data-quality findings as recommendations (spec: Operational behavior):
 * duplicate datasets, stale documents, unused logs, bloated prompts,
 * repeated training samples, unused model variants. Each names its rule,
 * its evidence (manifest ids, model routes), an estimated saving labelled
 * as an estimate with its formula, and a severity. Pure over the rows.
 */
import type { AiComputeManifest } from '../ai/gateway/ports.ts';
import type { ByteManifestRow } from '../store/repositories/report-rows.ts';
import type { EstimateConstants } from './estimate-constants.ts';
import { roundEstimate } from './figure.ts';

export const RECOMMENDATION_RULES = {
  /** Two objects in different prefixes sharing at least this share of their chunks are duplicates. */
  duplicate_chunk_share: 0.8,
  /** An object not read for this many days (and older than that) is stale. */
  stale_days: 90,
  /** A prompt whose context compilation removed at least this share of its context is bloated. */
  bloated_removed_share: 0.3,
  /** A prefix whose chunk occurrences repeat at least this often holds repeated samples. */
  repeated_chunk_share: 0.1,
  /** Object keys that look like logs. */
  log_pattern: '(^|/)logs?/|\\.log(\\.\\d+)?$|\\.jsonl$|\\.ndjson$',
  /** At most this many evidence ids per finding (the count is always exact). */
  max_evidence: 20,
} as const;

export type FindingKind = 'duplicate_datasets' | 'stale_documents' | 'unused_logs' | 'bloated_prompts' | 'repeated_training_samples' | 'unused_model_variants';

export interface Recommendation {
  finding: FindingKind;
  severity: 'high' | 'medium' | 'low';
  title: string;
  rule: string;
  evidence: { kind: 'manifest' | 'model'; ids: string[]; count: number };
  estimated_saving: { value: number; unit: string; estimate: true; formula: string };
  action: string;
}

export interface RecommendationInput {
  now: Date;
  manifests: Array<ByteManifestRow & { chunk_ids: string[] }>;
  lastReads: Map<string, string>;
  ai: AiComputeManifest[];
  /** Configured models as `provider/model`. */
  models: string[];
  constants: EstimateConstants;
  /**
   * Table versions whose decoded content (lakehouse dataset digest) equals a
   * version of another, older table: duplicates whatever their bytes
   * (src/svc/adapters/lakehouse). Their manifest ids.
   */
  logicalDuplicates?: readonly string[];
}

const R = RECOMMENDATION_RULES;

function prefixOf(ref: string): string {
  const path = ref.replace(/^[a-z][a-z0-9+.-]*:\/\//, '');
  const i = path.lastIndexOf('/');
  return i < 0 ? '' : path.slice(0, i + 1);
}

function severityForBytes(bytes: number): Recommendation['severity'] {
  return bytes >= 1024 ** 3 ? 'high' : bytes >= 1024 ** 2 ? 'medium' : 'low';
}

function evidence(kind: 'manifest' | 'model', ids: string[]): Recommendation['evidence'] {
  return { kind, ids: ids.slice(0, R.max_evidence), count: ids.length };
}

function storageSaving(bytes: number, c: EstimateConstants): Recommendation['estimated_saving'] {
  return {
    value: roundEstimate((bytes / 1e9) * c.storage_usd_per_gb_month.value * c.horizon_months.value),
    unit: 'USD',
    estimate: true,
    formula: `bytes_stored of the evidence (${bytes}) / 1e9 × storage_usd_per_gb_month (${c.storage_usd_per_gb_month.value}) × horizon_months (${c.horizon_months.value})`,
  };
}

function duplicates(input: RecommendationInput): Recommendation | undefined {
  const byChunk = new Map<string, Set<string>>();
  for (const m of input.manifests) for (const id of new Set(m.chunk_ids)) (byChunk.get(id) ?? byChunk.set(id, new Set()).get(id)!).add(m.id);
  const found: ByteManifestRow[] = [];
  const byId = new Map(input.manifests.map((m) => [m.id, m]));
  for (const m of input.manifests) {
    const unique = new Set(m.chunk_ids);
    if (unique.size === 0) continue;
    // An older manifest in another prefix that holds most of this one's chunks.
    const shared = new Map<string, number>();
    for (const id of unique) for (const other of byChunk.get(id)!) if (other < m.id && prefixOf(byId.get(other)!.logical_ref) !== prefixOf(m.logical_ref)) shared.set(other, (shared.get(other) ?? 0) + 1);
    if ([...shared.values()].some((n) => n / unique.size >= R.duplicate_chunk_share)) found.push(m);
  }
  const logical = new Set(input.logicalDuplicates ?? []);
  for (const m of input.manifests) if (logical.has(m.id) && !found.includes(m)) found.push(m);
  if (found.length === 0) return undefined;
  const bytes = found.reduce((a, m) => a + m.bytes_in, 0);
  return {
    finding: 'duplicate_datasets',
    severity: severityForBytes(bytes),
    title: `${found.length} object(s) duplicate data already stored under another prefix`,
    rule: `an active object shares at least ${R.duplicate_chunk_share * 100}% of its distinct chunks with an older object in a different prefix, or a lakehouse table version holds the same dataset (schema, rows, column checksums) as an older table`,
    evidence: evidence('manifest', found.map((m) => m.id)),
    estimated_saving: { ...storageSaving(bytes, input.constants), formula: `logical bytes of the duplicates (${bytes}) / 1e9 × storage_usd_per_gb_month × horizon_months: what removing the copies saves in the systems that hold them (svc already stores the shared chunks once)` },
    action: 'keep one copy of each dataset and reference it; delete or archive the copies at the source',
  };
}

function staleAndLogs(input: RecommendationInput): Recommendation[] {
  const cutoff = input.now.getTime() - R.stale_days * 86_400_000;
  const logRe = new RegExp(R.log_pattern);
  const neverRead = (m: ByteManifestRow) => !input.lastReads.has(m.id) && m.verifier_status === 'unverified';
  const stale = input.manifests.filter((m) => Date.parse(m.created_at) < cutoff && Date.parse(input.lastReads.get(m.id) ?? m.created_at) < cutoff && !logRe.test(m.logical_ref));
  const logs = input.manifests.filter((m) => logRe.test(m.logical_ref) && neverRead(m));
  const out: Recommendation[] = [];
  if (stale.length > 0) {
    const bytes = stale.reduce((a, m) => a + m.bytes_stored, 0);
    out.push({
      finding: 'stale_documents',
      severity: severityForBytes(bytes),
      title: `${stale.length} object(s) not read in ${R.stale_days} days`,
      rule: `active, created more than ${R.stale_days} days ago, and no object.get/object.range ledger event in the last ${R.stale_days} days`,
      evidence: evidence('manifest', stale.map((m) => m.id)),
      estimated_saving: storageSaving(bytes, input.constants),
      action: 'move to a cold tier or delete after review (a legal hold blocks deletion)',
    });
  }
  if (logs.length > 0) {
    const bytes = logs.reduce((a, m) => a + m.bytes_stored, 0);
    out.push({
      finding: 'unused_logs',
      severity: severityForBytes(bytes),
      title: `${logs.length} log object(s) never read back`,
      rule: `key matches /${R.log_pattern}/, never read through the object gateway and never rehydrated (verifier_status unverified)`,
      evidence: evidence('manifest', logs.map((m) => m.id)),
      estimated_saving: storageSaving(bytes, input.constants),
      action: 'shorten log retention or sample logs before storing them',
    });
  }
  return out;
}

function repeatedSamples(input: RecommendationInput): Recommendation | undefined {
  const byPrefix = new Map<string, Array<ByteManifestRow & { chunk_ids: string[] }>>();
  for (const m of input.manifests) {
    const p = prefixOf(m.logical_ref);
    (byPrefix.get(p) ?? byPrefix.set(p, []).get(p)!).push(m);
  }
  const evidenceIds: string[] = [];
  let repeatedBytes = 0;
  const prefixes: string[] = [];
  for (const [prefix, ms] of byPrefix) {
    if (ms.length < 2) continue;
    const seen = new Map<string, number>();
    let total = 0;
    for (const m of ms) for (const id of m.chunk_ids) (total++, seen.set(id, (seen.get(id) ?? 0) + 1));
    const repeats = [...seen.values()].reduce((a, n) => a + (n - 1), 0);
    if (total === 0 || repeats / total < R.repeated_chunk_share) continue;
    prefixes.push(prefix);
    for (const m of ms) if (m.stats.chunks_reused > 0) evidenceIds.push(m.id);
    repeatedBytes += ms.reduce((a, m) => a + m.stats.bytes_deduplicated, 0);
  }
  if (prefixes.length === 0) return undefined;
  const tokensJ = input.constants.joules_per_token.value;
  return {
    finding: 'repeated_training_samples',
    severity: severityForBytes(repeatedBytes),
    title: `${prefixes.length} dataset prefix(es) repeat their own samples`,
    rule: `within one prefix, at least ${R.repeated_chunk_share * 100}% of chunk occurrences repeat a chunk already in that prefix`,
    evidence: evidence('manifest', evidenceIds),
    estimated_saving: {
      value: roundEstimate(repeatedBytes / 4),
      unit: 'training tokens per epoch',
      estimate: true,
      formula: `repeated bytes (${repeatedBytes}) / 4 bytes per token (a common average for English text); energy at joules_per_token (${tokensJ}) per token per epoch`,
    },
    action: `deduplicate the samples under ${prefixes.slice(0, 5).join(', ')} before training`,
  };
}

function bloatedPrompts(input: RecommendationInput): Recommendation | undefined {
  const bloated = input.ai.filter((m) => m.tokens.context_before !== null && m.tokens.context_before > 0 && m.tokens.removed_by_context_compile / m.tokens.context_before >= R.bloated_removed_share);
  if (bloated.length === 0) return undefined;
  const removed = bloated.reduce((a, m) => a + m.tokens.removed_by_context_compile, 0);
  return {
    finding: 'bloated_prompts',
    severity: bloated.length >= 100 ? 'high' : bloated.length >= 10 ? 'medium' : 'low',
    title: `${bloated.length} prompt(s) carried context that compilation had to cut`,
    rule: `context compilation removed at least ${R.bloated_removed_share * 100}% of the prompt's context tokens`,
    evidence: evidence('manifest', bloated.map((m) => m.manifest_id)),
    estimated_saving: {
      value: roundEstimate(removed * input.constants.joules_per_token.value),
      unit: 'J',
      estimate: true,
      formula: `tokens removed in the window (${removed}) × joules_per_token (${input.constants.joules_per_token.value}): what sending the compiled context from the client would save before svc sees it`,
    },
    action: 'deduplicate retrieved passages and trim context in the calling application',
  };
}

function unusedModels(input: RecommendationInput): Recommendation | undefined {
  const used = new Set(input.ai.map((m) => m.route).filter((r): r is string => r !== null));
  const unused = input.models.filter((m) => !used.has(m));
  if (unused.length === 0 || input.models.length === 0) return undefined;
  return {
    finding: 'unused_model_variants',
    severity: 'low',
    title: `${unused.length} configured model(s) received no traffic in the window`,
    rule: 'a configured provider model that is the route of no compute manifest in the window',
    evidence: evidence('model', unused),
    estimated_saving: { value: 0, unit: 'USD', estimate: true, formula: 'not priced: a configured but idle model costs only its reserved capacity, which svc does not know' },
    action: 'remove the model from the provider configuration, or route traffic to it deliberately',
  };
}

export function buildRecommendations(input: RecommendationInput): Recommendation[] {
  return [duplicates(input), ...staleAndLogs(input), bloatedPrompts(input), repeatedSamples(input), unusedModels(input)].filter((r): r is Recommendation => r !== undefined);
}
