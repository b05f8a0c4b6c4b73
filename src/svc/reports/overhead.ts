/**
 * svc's own latency overhead, reported apart from savings. The overhead
 * spans are recorded locally and durably: each compute manifest carries
 * `latency_ms.overhead` (gateway time minus upstream time), committed in the
 * same transaction as the request's other records (docs/decisions/090).
 * With no matching spans the value is 0.0 plus a note, never an estimate.
 */
import type { AiComputeManifest } from '../ai/gateway/ports.ts';
import type { MeasuredFigure } from './figure.ts';
import { measured } from './figure.ts';
import { nearestRank } from './percentile.ts';

export interface OverheadFigure extends MeasuredFigure {
  samples: number;
}

export const NO_OVERHEAD_SPANS_NOTE =
  'no recorded overhead spans match this window and tenant (no AI request reached a provider), so the value is 0.0 by definition, not an estimate';

/** The spans that count: requests that went upstream (pass-through overhead, the spec's SLO). */
export function overheadSamples(ai: readonly AiComputeManifest[]): number[] {
  return ai.filter((m) => m.latency_ms.upstream !== null && m.latency_ms.overhead !== null).map((m) => m.latency_ms.overhead!);
}

export function gatewayOverheadP95(ai: readonly AiComputeManifest[]): OverheadFigure {
  const samples = overheadSamples(ai);
  const method = 'nearest-rank p95 of body.latency_ms.overhead over compute manifests created in the window whose latency_ms.upstream is not null';
  const p95 = nearestRank(samples, 95);
  if (p95 === undefined) return { ...measured(0.0, 'ms', 'ai_manifests', method, NO_OVERHEAD_SPANS_NOTE), samples: 0 };
  return { ...measured(p95, 'ms', 'ai_manifests', method), samples: samples.length };
}
