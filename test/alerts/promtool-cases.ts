/**
 * promtool unit-test cases: for every alert, input series that make it fire
 * and series that keep it quiet (interval 1m). The expected labels and
 * annotations come from the definitions themselves.
 */
export interface PromtoolCase {
  alert: string;
  fire: { series: Record<string, string>; at: string };
  quiet: { series: Record<string, string>; at: string };
}

const critical = (alert: string, series: string): PromtoolCase => ({
  alert,
  fire: { series: { [series]: '0 0 1 1 1' }, at: '4m' },
  // A failure long ago (outside the 5m window) no longer fires.
  quiet: { series: { [series]: '0 1 1 1 1 1 1 1 1 1 1 1' }, at: '11m' },
});

export const PROMTOOL_CASES: PromtoolCase[] = [
  critical('SvcExactRehydrationFailure', 'svc_verifier_failures_total{verifier="rehydration"}'),
  critical('SvcCrossTenantCacheHitAccepted', 'svc_cache_cross_tenant_hits_total'),
  critical('SvcPolicyEvaluationUnavailable', 'svc_policy_evaluation_unavailable_total{mode="enforce"}'),
  critical('SvcManifestStoreWriteFailure', 'svc_manifest_write_failures_total'),
  critical('SvcLedgerAppendFailure', 'svc_ledger_append_failures_total'),
  critical('SvcVerifierFailureWithoutFallback', 'svc_verifier_failures_without_fallback_total'),
  critical('SvcLegalHoldDeletionAttempt', 'svc_legal_hold_deletion_attempts_total'),
  critical('SvcPluginSignatureFailure', 'svc_plugin_signature_failures_total'),
  {
    alert: 'SvcCacheHitRateDrop',
    fire: { series: { 'svc_cache_hits_total{cache="exact"}': '0+1x40', 'svc_cache_misses_total{cache="exact"}': '0+10x40' }, at: '35m' },
    quiet: { series: { 'svc_cache_hits_total{cache="exact"}': '0+10x40', 'svc_cache_misses_total{cache="exact"}': '0+1x40' }, at: '35m' },
  },
  {
    alert: 'SvcCompressionRatioDrop',
    fire: { series: { svc_work_unit_bytes_stored_total: '0+2097152x100', svc_work_unit_bytes_in_total: '0+2097152x100' }, at: '90m' },
    quiet: { series: { svc_work_unit_bytes_stored_total: '0+209715x100', svc_work_unit_bytes_in_total: '0+2097152x100' }, at: '90m' },
  },
  {
    alert: 'SvcP95LatencyRise',
    fire: {
      series: { 'svc_http_request_seconds_bucket{le="0.1"}': '0+0x30', 'svc_http_request_seconds_bucket{le="1"}': '0+20x30', 'svc_http_request_seconds_bucket{le="+Inf"}': '0+20x30', svc_http_request_seconds_count: '0+20x30' },
      at: '25m',
    },
    quiet: {
      series: { 'svc_http_request_seconds_bucket{le="0.1"}': '0+20x30', 'svc_http_request_seconds_bucket{le="1"}': '0+20x30', 'svc_http_request_seconds_bucket{le="+Inf"}': '0+20x30', svc_http_request_seconds_count: '0+20x30' },
      at: '25m',
    },
  },
  {
    alert: 'SvcDedupeIndexGrowth',
    fire: { series: { svc_chunks_total: '0+30000x140', svc_chunk_dedupe_hits_total: '0+0x140' }, at: '130m' },
    quiet: { series: { svc_chunks_total: '0+30000x140', svc_chunk_dedupe_hits_total: '0+29000x140' }, at: '130m' },
  },
  {
    alert: 'SvcSemanticCacheStaleness',
    fire: { series: { svc_ai_semantic_cache_stale_total: '0+5x70', 'svc_cache_hits_total{cache="semantic"}': '0+1x70', 'svc_cache_misses_total{cache="semantic"}': '0+9x70' }, at: '60m' },
    quiet: { series: { svc_ai_semantic_cache_stale_total: '0+1x70', 'svc_cache_hits_total{cache="semantic"}': '0+1x70', 'svc_cache_misses_total{cache="semantic"}': '0+9x70' }, at: '60m' },
  },
  {
    alert: 'SvcModelFallbackRate',
    fire: { series: { 'svc_ai_fallbacks_total{reason="verifier_failed"}': '0+2x40', 'svc_work_units_total{kind="prompt_request"}': '0+10x40' }, at: '30m' },
    quiet: { series: { 'svc_ai_fallbacks_total{reason="verifier_failed"}': '0+0x40', 'svc_work_units_total{kind="prompt_request"}': '0+10x40', 'svc_work_units_total{kind="byte_object"}': '0+100x40' }, at: '30m' },
  },
  {
    alert: 'SvcSchedulerMissedDeadlines',
    fire: { series: { svc_scheduler_missed_deadlines_total: '0 1 1' }, at: '2m' },
    quiet: { series: { svc_scheduler_missed_deadlines_total: '0 0 0' }, at: '2m' },
  },
];
