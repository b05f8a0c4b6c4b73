/**
 * The spec's 8 critical and 7 warning alerts, defined once. Both the
 * Prometheus rules file and the in-process evaluator (`GET /v1/admin/alerts`)
 * are generated from this table; docs/alerts.md explains each one.
 *
 * Thresholds of the warning alerts are svc defaults (a "drop" or "rise" is a
 * floor or ceiling over the window, not a comparison with yesterday, so the
 * in-process form needs no day-long history); tune them by editing here and
 * regenerating the rules file (`node tools/alerts/write-prometheus-rules.ts`).
 */
import type { AlertExpr } from './alert-expr.ts';

export type AlertSeverity = 'critical' | 'warning';

export interface AlertDefinition {
  name: string;
  severity: AlertSeverity;
  /** The spec's wording. */
  spec: string;
  summary: string;
  expr: AlertExpr;
  /** How long the condition must hold before the alert fires (Prometheus `for`). */
  for: string;
  /** Set when the subsystem whose metric this reads does not exist yet: the alert stays quiet until it does. */
  quiet_until?: string;
}

const AI_KINDS = { re: 'prompt_request|completion_request|embedding_request' };

export const ALERTS: readonly AlertDefinition[] = [
  {
    name: 'SvcExactRehydrationFailure',
    severity: 'critical',
    spec: 'exact rehydration failure',
    summary: 'A rehydration did not reproduce the manifest bytes; the manifest is quarantined and an incident is in the ledger.',
    expr: { op: 'increase_gt', sel: { metric: 'svc_verifier_failures_total', labels: { verifier: 'rehydration' } }, window: '5m', threshold: 0 },
    for: '0s',
  },
  {
    name: 'SvcCrossTenantCacheHitAccepted',
    severity: 'critical',
    spec: 'cross-tenant cache attempt accepted',
    summary: "A cache lookup returned another tenant's entry (the gateway refused to serve it, but isolation is broken).",
    expr: { op: 'increase_gt', sel: { metric: 'svc_cache_cross_tenant_hits_total' }, window: '5m', threshold: 0 },
    for: '0s',
  },
  {
    name: 'SvcPolicyEvaluationUnavailable',
    severity: 'critical',
    spec: 'policy evaluation unavailable in enforce mode',
    summary: 'Policy evaluation failed for an enforce-mode request; svc failed closed (denied).',
    expr: { op: 'increase_gt', sel: { metric: 'svc_policy_evaluation_unavailable_total', labels: { mode: 'enforce' } }, window: '5m', threshold: 0 },
    for: '0s',
  },
  {
    name: 'SvcManifestStoreWriteFailure',
    severity: 'critical',
    spec: 'manifest store write failure',
    summary: 'A manifest could not be written to the metadata store.',
    expr: { op: 'increase_gt', sel: { metric: 'svc_manifest_write_failures_total' }, window: '5m', threshold: 0 },
    for: '0s',
  },
  {
    name: 'SvcLedgerAppendFailure',
    severity: 'critical',
    spec: 'ledger append failure',
    summary: 'A ledger batch failed to commit; the requests in it were not acknowledged.',
    expr: { op: 'increase_gt', sel: { metric: 'svc_ledger_append_failures_total' }, window: '5m', threshold: 0 },
    for: '0s',
  },
  {
    name: 'SvcVerifierFailureWithoutFallback',
    severity: 'critical',
    spec: 'verifier failure without fallback',
    summary: 'A required verifier failed and no fallback recovered the request (none configured, or the fallback failed too).',
    expr: { op: 'increase_gt', sel: { metric: 'svc_verifier_failures_without_fallback_total' }, window: '5m', threshold: 0 },
    for: '0s',
  },
  {
    name: 'SvcLegalHoldDeletionAttempt',
    severity: 'critical',
    spec: 'legal hold deletion attempt',
    summary: 'Someone tried to delete data under a legal hold; the deletion was refused and recorded.',
    expr: { op: 'increase_gt', sel: { metric: 'svc_legal_hold_deletion_attempts_total' }, window: '5m', threshold: 0 },
    for: '0s',
  },
  {
    name: 'SvcPluginSignatureFailure',
    severity: 'critical',
    spec: 'plugin signature failure',
    summary: 'A plugin failed signature verification and was not loaded.',
    expr: { op: 'increase_gt', sel: { metric: 'svc_plugin_signature_failures_total' }, window: '5m', threshold: 0 },
    for: '0s',
  },
  {
    name: 'SvcCacheHitRateDrop',
    severity: 'warning',
    spec: 'cache hit rate drop',
    summary: 'Under 20% of cache lookups hit over the last hour (at least 100 lookups).',
    expr: { op: 'ratio', num: [{ metric: 'svc_cache_hits_total' }], den: [{ metric: 'svc_cache_hits_total' }, { metric: 'svc_cache_misses_total' }], cmp: '<', window: '1h', threshold: 0.2, min_den: 100 },
    for: '15m',
  },
  {
    name: 'SvcCompressionRatioDrop',
    severity: 'warning',
    spec: 'compression ratio drop',
    summary: 'Bytes stored are more than 95% of bytes received over the last hour (at least 64 MiB received): dedupe and compression stopped paying.',
    expr: { op: 'ratio', num: [{ metric: 'svc_work_unit_bytes_stored_total' }], den: [{ metric: 'svc_work_unit_bytes_in_total' }], cmp: '>', window: '1h', threshold: 0.95, min_den: 64 * 1024 * 1024 },
    for: '30m',
  },
  {
    name: 'SvcP95LatencyRise',
    severity: 'warning',
    spec: 'p95 latency rise',
    summary: 'p95 HTTP latency above 500 ms over the last 5 minutes (at least 50 requests).',
    expr: { op: 'quantile_gt', histogram: 'svc_http_request_seconds', q: 0.95, window: '5m', threshold: 0.5, min_count: 50 },
    for: '10m',
  },
  {
    name: 'SvcDedupeIndexGrowth',
    severity: 'warning',
    spec: 'dedupe index growth',
    summary: 'More than one million new chunk-index entries in an hour.',
    expr: { op: 'difference_gt', a: { metric: 'svc_chunks_total' }, b: { metric: 'svc_chunk_dedupe_hits_total' }, window: '1h', threshold: 1_000_000 },
    for: '1h',
  },
  {
    name: 'SvcSemanticCacheStaleness',
    severity: 'warning',
    spec: 'semantic cache staleness',
    summary: 'Over 25% of semantic cache lookups found only stale candidates in the last hour (at least 20 lookups).',
    expr: { op: 'ratio', num: [{ metric: 'svc_ai_semantic_cache_stale_total' }], den: [{ metric: 'svc_cache_hits_total', labels: { cache: 'semantic' } }, { metric: 'svc_cache_misses_total', labels: { cache: 'semantic' } }], cmp: '>', window: '1h', threshold: 0.25, min_den: 20 },
    for: '30m',
  },
  {
    name: 'SvcModelFallbackRate',
    severity: 'warning',
    spec: 'model fallback rate',
    summary: 'Over 5% of AI requests took a fallback route in the last 15 minutes (at least 20 requests).',
    expr: { op: 'ratio', num: [{ metric: 'svc_ai_fallbacks_total' }], den: [{ metric: 'svc_work_units_total', labels: { kind: AI_KINDS } }], cmp: '>', window: '15m', threshold: 0.05, min_den: 20 },
    for: '10m',
  },
  {
    name: 'SvcSchedulerMissedDeadlines',
    severity: 'warning',
    spec: 'scheduler missed deadlines',
    summary: 'A flexible job finished after its deadline in the last hour.',
    expr: { op: 'increase_gt', sel: { metric: 'svc_scheduler_missed_deadlines_total' }, window: '1h', threshold: 0 },
    for: '0s',
  },
];
