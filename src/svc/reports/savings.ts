/**
 * Savings in two groups that never mix: measured (sums over manifest rows)
 * and estimated (a formula over measured figures and labelled constants).
 */
import type { AiComputeManifest } from '../ai/gateway/ports.ts';
import type { ByteManifestRow } from '../store/repositories/report-rows.ts';
import type { EstimateConstantName, EstimateConstants } from './estimate-constants.ts';
import { type EstimatedFigure, type MeasuredFigure, measured, roundEstimate } from './figure.ts';

const SECONDS_PER_MONTH = 30.4375 * 86_400;
const CACHE_HITS = new Set(['exact_hit', 'semantic_hit']);

export interface MeasuredSavings {
  baseline_bytes_in: MeasuredFigure;
  physical_bytes_stored: MeasuredFigure;
  bytes_avoided_dedupe: MeasuredFigure;
  bytes_avoided_compression: MeasuredFigure;
  bytes_avoided_lifecycle: MeasuredFigure;
  chunks_reused: MeasuredFigure;
  provider_calls_avoided_by_cache: MeasuredFigure;
  tokens_removed_by_context_compilation: MeasuredFigure;
  tokens_avoided_by_cache: MeasuredFigure;
  large_model_calls_avoided: MeasuredFigure;
}

export interface EstimatedSavings {
  storage_cost_avoided: EstimatedFigure;
  ai_cost_avoided: EstimatedFigure;
  energy_avoided: EstimatedFigure;
  future_capacity_avoided: EstimatedFigure;
  co2_avoided: EstimatedFigure;
}

const sum = <T>(rows: readonly T[], f: (r: T) => number): number => rows.reduce((a, r) => a + f(r), 0);

export function measuredSavings(bytes: readonly ByteManifestRow[], ai: readonly AiComputeManifest[]): MeasuredSavings {
  const enforce = bytes.filter((m) => m.mode === 'enforce');
  return {
    baseline_bytes_in: measured(sum(bytes, (m) => m.bytes_in), 'bytes', 'manifests', 'SUM(manifests.bytes_in) over byte manifests created in the window'),
    physical_bytes_stored: measured(sum(bytes, (m) => m.bytes_stored), 'bytes', 'manifests', 'SUM(manifests.bytes_stored) over byte manifests created in the window'),
    bytes_avoided_dedupe: measured(sum(enforce, (m) => m.stats.bytes_deduplicated), 'bytes', 'manifests', "SUM(body.stats.bytes_deduplicated) over byte manifests with mode = 'enforce' created in the window"),
    bytes_avoided_compression: measured(sum(enforce, (m) => m.stats.bytes_saved_by_compression), 'bytes', 'manifests', "SUM(body.stats.bytes_saved_by_compression) over byte manifests with mode = 'enforce' created in the window"),
    bytes_avoided_lifecycle: measured(0, 'bytes', 'manifests', 'SUM of bytes released by lifecycle deletion', 'svc has no lifecycle deletion yet (chunks of tombstoned manifests are retained), so nothing has been avoided by it'),
    chunks_reused: measured(sum(enforce, (m) => m.stats.chunks_reused), 'chunks', 'manifests', "SUM(body.stats.chunks_reused) over byte manifests with mode = 'enforce' created in the window"),
    provider_calls_avoided_by_cache: measured(ai.filter((m) => CACHE_HITS.has(m.cache)).length, 'calls', 'ai_manifests', "COUNT(ai_manifests) with cache IN ('exact_hit', 'semantic_hit') created in the window"),
    tokens_removed_by_context_compilation: measured(sum(ai, (m) => m.tokens.removed_by_context_compile), 'tokens', 'ai_manifests', 'SUM(body.tokens.removed_by_context_compile) over compute manifests created in the window'),
    tokens_avoided_by_cache: measured(sum(ai, (m) => m.tokens.avoided), 'tokens', 'ai_manifests', 'SUM(body.tokens.avoided) over compute manifests created in the window'),
    large_model_calls_avoided: measured(sum(ai, (m) => m.routing.large_model_calls_avoided), 'calls', 'ai_manifests', 'SUM(body.routing.large_model_calls_avoided) over compute manifests created in the window'),
  };
}

function pick(c: EstimateConstants, names: readonly EstimateConstantName[]): EstimatedFigure['constants'] {
  return Object.fromEntries(names.map((n) => [n, c[n]]));
}

function estimate(value: number, unit: string, formula: string, c: EstimateConstants, names: readonly EstimateConstantName[], inputs: Record<string, number>): EstimatedFigure {
  return { value: roundEstimate(value), unit, kind: 'estimated', estimate: true, formula, constants: pick(c, names), inputs };
}

export function estimatedSavings(m: MeasuredSavings, ai: readonly AiComputeManifest[], c: EstimateConstants): EstimatedSavings {
  const bytesAvoided = m.bytes_avoided_dedupe.value + m.bytes_avoided_compression.value + m.bytes_avoided_lifecycle.value;
  const v = (n: EstimateConstantName) => c[n].value;
  const storageCost = (bytesAvoided / 1e9) * v('storage_usd_per_gb_month') * v('horizon_months');
  const aiCost = sum(ai, (r) => (r.estimated_cost && r.estimated_cost.currency === 'USD' ? r.estimated_cost.avoided_cost : 0));
  const storageJoules = (bytesAvoided / 1e12) * v('replication_factor') * v('storage_watts_per_tb') * v('horizon_months') * SECONDS_PER_MONTH;
  const tokens = m.tokens_removed_by_context_compilation.value + m.tokens_avoided_by_cache.value;
  const aiJoules = m.large_model_calls_avoided.value * v('joules_per_large_model_call') + tokens * v('joules_per_token');
  const joules = storageJoules + aiJoules;
  return {
    storage_cost_avoided: estimate(storageCost, 'USD', 'bytes_avoided / 1e9 × storage_usd_per_gb_month × horizon_months', c, ['storage_usd_per_gb_month', 'horizon_months'], { bytes_avoided: bytesAvoided }),
    ai_cost_avoided: estimate(
      aiCost,
      'USD',
      "SUM(body.estimated_cost.avoided_cost) over compute manifests with currency 'USD' (each priced by the provider's configured token prices)",
      c,
      [],
      { compute_manifests: ai.length },
    ),
    energy_avoided: estimate(
      joules,
      'J',
      'bytes_avoided / 1e12 × replication_factor × storage_watts_per_tb × horizon_months × 2,629,800 s + large_model_calls_avoided × joules_per_large_model_call + (tokens_removed_by_context_compilation + tokens_avoided_by_cache) × joules_per_token',
      c,
      ['replication_factor', 'storage_watts_per_tb', 'horizon_months', 'joules_per_large_model_call', 'joules_per_token'],
      { bytes_avoided: bytesAvoided, large_model_calls_avoided: m.large_model_calls_avoided.value, tokens_avoided: tokens },
    ),
    future_capacity_avoided: estimate(bytesAvoided * v('replication_factor'), 'bytes', 'bytes_avoided × replication_factor', c, ['replication_factor'], { bytes_avoided: bytesAvoided }),
    co2_avoided: estimate((joules / 3.6e6) * v('grid_g_co2_per_kwh'), 'gCO2', 'energy_avoided (J) / 3.6e6 × grid_g_co2_per_kwh', c, ['grid_g_co2_per_kwh'], { energy_avoided_joules: roundEstimate(joules) }),
  };
}
