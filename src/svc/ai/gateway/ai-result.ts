/**
 * What the gateway hands back to an adapter (REST, gRPC, CLI, execute):
 * a JSON body or a stream of SSE frames, plus the metadata the adapter
 * turns into headers or the `svc` object. Transport-free: adapters decide
 * how each field reaches the wire.
 */
import type { OperatingPoint } from '../../cache/semantic/semantic-cache.ts';
import type { SseFrame } from '../streaming/sse-frames.ts';
import type { StoredAiWorkUnit } from './ports.ts';

export interface AiCallOptions {
  /** Add the `svc` object to the response body (the request had an `svc` extension or `X-SVC-Metadata: true`). */
  wantsMetadata: boolean;
  /**
   * Execute this stored work unit (`POST /v1/work-units/{id}/execute`)
   * instead of creating one: its id, tenant and logical reference are used,
   * and it is updated when the request is recorded. The caller has checked
   * that the principal may see and execute it.
   */
  workUnit?: StoredAiWorkUnit;
}

/** What headers and the `svc` object report. Fields settle as the request runs; streams finish them at the end. */
export interface AiResponseMeta {
  work_unit_id: string;
  manifest_id: string;
  plan_id: string;
  trace_id: string;
  tenant: string;
  contract: string;
  mode: string;
  policy_bundle_id: string;
  cache: string;
  route: string | null;
  fallback_used: boolean;
  fallback_reason: string | null;
  verifier: string | null;
  tokens_avoided: number;
  /** SHA-256 of the canonical answer served (the compute manifest's `result.output_sha256`); null until there is one. */
  output_sha256: string | null;
  /** The operating point a semantic hit was accepted under; null unless `cache` is a semantic hit. */
  semantic_operating_point: OperatingPoint | null;
}

/** The operating point as one header-safe word: `<source>:<threshold>:<embedder or calibration id>`; null without one. */
export function operatingPointLabel(point: OperatingPoint | null): string | null {
  return point ? `${point.source}:${point.threshold}:${point.source === 'calibration' ? point.calibration_id : point.embedder}` : null;
}

/**
 * `bodyText`, when present, is JSON text whose value is `body` (the
 * upstream's answer passed on unchanged): a transport may send it instead of
 * serialising `body` again.
 */
export type AiResult = { kind: 'json'; body: unknown; bodyText?: string; meta: AiResponseMeta } | { kind: 'stream'; frames: AsyncIterable<SseFrame>; meta: AiResponseMeta };
