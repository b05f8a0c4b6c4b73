/**
 * AI compute manifests as manifest lists and the explorer show them, next
 * to byte-object manifests: the same summary fields, with zero bytes (a
 * compute manifest stores no object), `state: active` (compute manifests
 * have no lifecycle), the verifier outcome and the cache result of the
 * request. What a compute manifest can and cannot do: docs/manifests.md and
 * docs/decisions/016.
 */
import type { AiComputeManifest } from '../ai/gateway/ports.ts';
import type { VerifierStatus } from './manifest.ts';

export interface ComputeManifestSummary {
  manifest_id: string;
  /** The AI kind: `ai_chat_completion`, `ai_completion` or `ai_embedding`. */
  kind: string;
  work_unit_id: string;
  plan_id: string;
  tenant: string;
  /** The logical reference of the work unit (null if that row is gone). */
  logical_ref: string | null;
  contract: string;
  mode: string;
  state: 'active';
  /** How the request ended: `completed` or `failed`. */
  status: string;
  route: string | null;
  bytes_in: 0;
  bytes_stored: 0;
  verifier_status: VerifierStatus;
  /** `miss`, `exact_hit`, `semantic_hit`, `bypass`, `observe_exact_hit`, `observe_semantic_hit`. */
  cache_result: string;
  fallback_used: boolean;
  trace_id: string;
  policy_bundle_id: string;
  created_at: string;
  updated_at: string;
}

export function computeManifestSummary(m: AiComputeManifest, logicalRef: string | null): ComputeManifestSummary {
  return {
    manifest_id: m.manifest_id,
    kind: m.kind,
    work_unit_id: m.work_unit_id,
    plan_id: m.plan_id,
    tenant: m.tenant,
    logical_ref: logicalRef,
    contract: m.contract,
    mode: m.mode,
    state: 'active',
    status: m.status,
    route: m.route,
    bytes_in: 0,
    bytes_stored: 0,
    verifier_status: m.verifier.passed === true ? 'passed' : m.verifier.passed === false ? 'failed' : 'unverified',
    cache_result: m.cache,
    fallback_used: m.result.fallback_used,
    trace_id: m.trace_id,
    policy_bundle_id: m.policy_bundle_id,
    created_at: m.created_at,
    updated_at: m.created_at,
  };
}

/** Two pages, each sorted by manifest id, merged into one of at most `limit` (ids are time-ordered across both kinds). */
export function mergeById<T extends { manifest_id: string }>(a: readonly T[], b: readonly T[], limit: number, newestFirst = false): T[] {
  const merged = [...a, ...b].sort((x, y) => (x.manifest_id < y.manifest_id ? -1 : x.manifest_id > y.manifest_id ? 1 : 0));
  if (newestFirst) merged.reverse();
  return merged.slice(0, limit);
}
