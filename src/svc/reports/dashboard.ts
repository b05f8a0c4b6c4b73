/**
 * The dashboard payload (spec: Dashboard payload): five sections computed
 * only from the rows a `ReportRows` holds. Pure: the same rows and constants
 * always give the same report, which is what makes it reproducible.
 */
import type { AiComputeManifest } from '../ai/gateway/ports.ts';
import type { ByteManifestRow, LedgerHead } from '../store/repositories/report-rows.ts';
import type { EstimateConstants } from './estimate-constants.ts';
import { type MeasuredFigure, measured } from './figure.ts';
import { type OverheadFigure, gatewayOverheadP95 } from './overhead.ts';
import type { ReportWindow } from './report-query.ts';
import { type EstimatedSavings, type MeasuredSavings, estimatedSavings, measuredSavings } from './savings.ts';

export interface ReportRows {
  window: ReportWindow;
  tenant: string | null;
  head: LedgerHead | null;
  bytes: ByteManifestRow[];
  ai: AiComputeManifest[];
  events: Record<string, number>;
}

/** Ledger event types the security section counts (refusals and cross-tenant attempts). */
export const SECURITY_EVENT_TYPES = [
  'auth.tenant_denied',
  'cache.cross_tenant.denied',
  'policy.transform.denied',
  'policy.operation.denied',
  'object.delete.denied',
  'approval.refused',
  'policy.bundle.publish_refused',
  'legal_hold.deletion_blocked',
  'plugin.signature_failed',
] as const;

const RESTORE_EVENT_TYPES = ['incident.rehydration_failed', 'manifests.exported', 'manifests.imported'] as const;

function countBy<T>(rows: readonly T[], key: (r: T) => string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of rows) out[key(r)] = (out[key(r)] ?? 0) + 1;
  return out;
}

function ratio(numerator: number, denominator: number): number {
  return denominator === 0 ? 0 : numerator / denominator;
}

function eventFigure(events: Record<string, number>, type: string): MeasuredFigure {
  return measured(events[type] ?? 0, 'events', 'ledger_events', `COUNT(ledger_events) with type = '${type}' and ts in the window, seq <= ledger_head.seq`);
}

/** Per-day totals (UTC) over the window: what the web dashboard draws over time. */
export interface DailyPoint {
  day: string;
  bytes_in: number;
  bytes_stored: number;
  ai_requests: number;
  cache_hits: number;
}

export function dailySeries(bytes: readonly ByteManifestRow[], ai: readonly AiComputeManifest[]): DailyPoint[] {
  const days = new Map<string, DailyPoint>();
  const at = (ts: string) => {
    const day = ts.slice(0, 10);
    return days.get(day) ?? days.set(day, { day, bytes_in: 0, bytes_stored: 0, ai_requests: 0, cache_hits: 0 }).get(day)!;
  };
  for (const m of bytes) {
    const p = at(m.created_at);
    p.bytes_in += m.bytes_in;
    p.bytes_stored += m.bytes_stored;
  }
  for (const m of ai) {
    const p = at(m.created_at);
    p.ai_requests++;
    if (m.cache === 'exact_hit' || m.cache === 'semantic_hit') p.cache_hits++;
  }
  return [...days.values()].sort((a, b) => a.day.localeCompare(b.day));
}

export interface DashboardSections {
  executive: {
    work_units: MeasuredFigure;
    /** Per-day sums of the same rows (manifests.created_at / ai_manifests.created_at, UTC days). */
    daily: DailyPoint[];
    savings: { measured: MeasuredSavings; estimated: EstimatedSavings };
    overhead: { gateway_overhead_p95: OverheadFigure };
  };
  platform: Record<string, unknown>;
  ai: Record<string, unknown>;
  data: Record<string, unknown>;
  security: Record<string, unknown>;
}

export function buildDashboard(rows: ReportRows, constants: EstimateConstants): DashboardSections {
  const { bytes, ai, events } = rows;
  const saved = measuredSavings(bytes, ai);
  const overhead = gatewayOverheadP95(ai);
  const bytesIn = saved.baseline_bytes_in.value;
  const stored = saved.physical_bytes_stored.value;
  const hits = ai.filter((m) => m.cache === 'exact_hit' || m.cache === 'semantic_hit').length;
  const fallbacks = ai.filter((m) => m.result.fallback_used).length;
  const verifierFailures = ai.filter((m) => m.verifier.passed === false).length;
  const observe = bytes.filter((m) => m.mode === 'observe');
  return {
    executive: {
      work_units: measured(bytes.length + ai.length, 'work units', 'manifests', 'COUNT(manifests) + COUNT(ai_manifests) created in the window (one manifest per executed work unit)'),
      daily: dailySeries(bytes, ai),
      savings: { measured: saved, estimated: estimatedSavings(saved, ai, constants) },
      overhead: { gateway_overhead_p95: overhead },
    },
    platform: {
      byte_manifests: measured(bytes.length, 'manifests', 'manifests', 'COUNT(manifests) created in the window'),
      manifests_by_state: countBy(bytes, (m) => m.state),
      manifests_by_contract: countBy(bytes, (m) => m.contract),
      manifests_by_mode: countBy(bytes, (m) => m.mode),
      storage_ratio: measured(ratio(stored, bytesIn), 'ratio', 'manifests', 'SUM(bytes_stored) / SUM(bytes_in) over byte manifests created in the window (0 when no bytes)'),
      chunks: measured(bytes.reduce((a, m) => a + m.chunk_count, 0), 'chunks', 'manifests', 'SUM(manifests.chunk_count) created in the window'),
      // Signed plugins (docs/plugins.md): every sandboxed call is a ledger event, so the error rate is reproducible.
      plugin_calls: measured((events['plugin.called'] ?? 0) + (events['plugin.call_failed'] ?? 0), 'calls', 'ledger_events', "COUNT(ledger_events) with type IN ('plugin.called', 'plugin.call_failed') in the window"),
      plugin_failures: eventFigure(events, 'plugin.call_failed'),
      plugin_error_rate: measured(
        ratio(events['plugin.call_failed'] ?? 0, (events['plugin.called'] ?? 0) + (events['plugin.call_failed'] ?? 0)),
        'ratio',
        'ledger_events',
        "COUNT(type = 'plugin.call_failed') / COUNT(type IN ('plugin.called', 'plugin.call_failed')) in the window (0 when no calls)",
      ),
      observe_would_avoid_bytes: measured(
        observe.reduce((a, m) => a + m.stats.bytes_deduplicated + m.stats.bytes_saved_by_compression, 0),
        'bytes',
        'manifests',
        "SUM(body.stats.bytes_deduplicated + body.stats.bytes_saved_by_compression) over byte manifests with mode = 'observe' (what enforce would have avoided; not a saving)",
      ),
    },
    ai: {
      requests: measured(ai.length, 'requests', 'ai_manifests', 'COUNT(ai_manifests) created in the window'),
      by_cache: countBy(ai, (m) => m.cache),
      by_status: countBy(ai, (m) => m.status),
      by_route: countBy(ai, (m) => m.route ?? 'none'),
      cache_hit_rate: measured(ratio(hits, ai.length), 'ratio', 'ai_manifests', "COUNT(cache IN ('exact_hit','semantic_hit')) / COUNT(*) over compute manifests in the window"),
      prompt_tokens: measured(ai.reduce((a, m) => a + m.tokens.prompt, 0), 'tokens', 'ai_manifests', 'SUM(body.tokens.prompt) over compute manifests in the window'),
      fallbacks: measured(fallbacks, 'requests', 'ai_manifests', 'COUNT(ai_manifests) with fallback_used = 1 in the window'),
      fallback_rate: measured(ratio(fallbacks, ai.length), 'ratio', 'ai_manifests', 'COUNT(fallback_used = 1) / COUNT(*) over compute manifests in the window'),
      verifier_failures: measured(verifierFailures, 'requests', 'ai_manifests', 'COUNT(ai_manifests) with body.verifier.passed = false in the window'),
      large_model_calls: measured(ai.reduce((a, m) => a + m.routing.large_model_calls, 0), 'calls', 'ai_manifests', 'SUM(body.routing.large_model_calls) over compute manifests in the window'),
      gateway_overhead_p95: overhead,
    },
    data: {
      // The training adapter (docs/adapters.md): identical runs answered from their record. GPU seconds avoided
      // are an estimate and are exported as svc_training_gpu_seconds_avoided_total, not summed here.
      training: { runs_avoided: eventFigure(events, 'training.run_avoided') },
      restore_tests: {
        sampled_exact_byte_restore: {
          passed: measured(bytes.filter((m) => m.verifier_status === 'passed').length, 'manifests', 'manifests', "COUNT(manifests) with verifier_status = 'passed' (last rehydration matched the sha256) in the window"),
          failed: measured(bytes.filter((m) => m.verifier_status === 'failed').length, 'manifests', 'manifests', "COUNT(manifests) with verifier_status = 'failed' in the window"),
          never_restored: measured(bytes.filter((m) => m.verifier_status === 'unverified').length, 'manifests', 'manifests', "COUNT(manifests) with verifier_status = 'unverified' in the window"),
          incidents: eventFigure(events, 'incident.rehydration_failed'),
          quarantined: measured(bytes.filter((m) => m.state === 'quarantined').length, 'manifests', 'manifests', "COUNT(manifests) with state = 'quarantined' in the window"),
        },
        manifest_migration_restore: { exports: eventFigure(events, RESTORE_EVENT_TYPES[1]), imports: eventFigure(events, RESTORE_EVENT_TYPES[2]) },
        not_available: {
          full_restore_of_critical_datasets: 'no scheduled restore job exists yet',
          table_logical_verification: 'run by POST /v1/admin/restore-tests kind table_logical (restore_test.completed events); not summarised here yet',
          ai_cache_source_validation: 'semantic cache entries are validated at lookup time only; no batch validation job exists yet',
        },
      },
    },
    security: {
      refusals: Object.fromEntries(SECURITY_EVENT_TYPES.map((t) => [t, eventFigure(events, t)])),
      events_by_type: events,
      ledger_events: measured(
        Object.values(events).reduce((a, n) => a + n, 0),
        'events',
        'ledger_events',
        'COUNT(ledger_events) with ts in the window and seq <= ledger_head.seq',
      ),
    },
  };
}
