/**
 * Prometheus metrics with the spec's `svc_*` names, on a registry of our own
 * (not the global one) so tests and several apps in one process stay apart.
 * Capabilities increment them through `SvcMetrics`; `/metrics` renders them.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { AiRecordJournal } from '../store/repositories/ai-record-journal.ts';
import { PURGED_CACHES } from '../cache/cache-purge.ts';
import type { OpLog } from '../logs/oplog.ts';
import { collectProcessMetrics } from './process-metrics.ts';

export function createMetrics() {
  const registry = new Registry();
  collectProcessMetrics(registry);
  const counter = (name: string, help: string, labelNames: string[] = []) => new Counter({ name, help, labelNames, registers: [registry] });
  const histogram = (name: string, help: string, buckets: number[], labelNames: string[] = []) => new Histogram({ name, help, buckets, labelNames, registers: [registry] });
  const fast = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];
  const metrics = {
    registry,
    workUnits: counter('svc_work_units_total', 'Work units created, by kind.', ['kind']),
    bytesIn: counter('svc_work_unit_bytes_in_total', 'Bytes received in work units and objects.'),
    bytesStored: counter('svc_work_unit_bytes_stored_total', 'Bytes physically stored (after dedupe and compression).'),
    bytesAvoided: counter('svc_bytes_avoided_total', 'Bytes not stored, by reason: dedupe, compression, lifecycle (bytes released by lifecycle expiry; always 0 until chunk garbage collection exists, see docs/observability.md).', ['reason']),
    chunks: counter('svc_chunks_total', 'Chunks produced by content-defined chunking.'),
    chunkDedupeHits: counter('svc_chunk_dedupe_hits_total', 'Chunks already present in the chunk index.'),
    compressionRatio: new Gauge({ name: 'svc_compression_ratio', help: 'Stored bytes / bytes in, over the process lifetime.', registers: [registry] }),
    rehydrationSeconds: histogram('svc_rehydration_seconds', 'Rehydration latency.', fast),
    policyDenials: counter('svc_policy_denials_total', 'Policy denials, by action.', ['action']),
    verifierFailures: counter('svc_verifier_failures_total', 'Verifier failures, by verifier.', ['verifier']),
    cacheHits: counter('svc_cache_hits_total', 'Cache hits, by cache (exact, semantic).', ['cache']),
    cacheMisses: counter('svc_cache_misses_total', 'Cache misses, by cache.', ['cache']),
    cacheEntriesPurged: counter('svc_cache_entries_purged_total', 'Expired cache entries deleted by the background purge, by cache (exact, semantic).', ['cache']),
    semanticCacheStale: counter('svc_ai_semantic_cache_stale_total', 'Semantic cache lookups answered stale: the best candidate was rejected for its source or age (gateway and direct lookups).'),
    aiInputTokens: counter('svc_ai_input_tokens_total', 'Prompt tokens received by the AI gateway.'),
    aiContextTokensRemoved: counter('svc_ai_context_tokens_removed_total', 'Tokens removed by context compilation.'),
    aiLargeModelCalls: counter('svc_ai_large_model_calls_total', 'Calls routed to a large model.'),
    aiLargeModelCallsAvoided: counter('svc_ai_large_model_calls_avoided_total', 'Requests that would have gone to a large model and did not.'),
    aiFallbacks: counter('svc_ai_fallbacks_total', 'Fallback routes taken, by reason.', ['reason']),
    trainingGpuSecondsAvoided: counter('svc_training_gpu_seconds_avoided_total', 'GPU seconds avoided by answering identical training runs from their recorded result, from the declared or recorded run cost (estimate).'),
    schedulerJobsShifted: counter('svc_scheduler_jobs_shifted_total', 'Flexible jobs moved to a cleaner window.'),
    schedulerTransitions: counter('svc_scheduler_job_transitions_total', 'Scheduler job transitions, by the state entered.', ['state']),
    schedulerMissedDeadlines: counter('svc_scheduler_missed_deadlines_total', 'Scheduler jobs that became missed (alert: any increase is a warning).'),
    schedulerGco2AvoidedEstimate: counter('svc_scheduler_estimated_gco2_avoided_total', 'Estimated gCO2 avoided by shifting, from forecasts (estimate).'),
    schedulerPlanSeconds: histogram('svc_scheduler_plan_seconds', 'Scheduler planning latency per job.', fast),
    manifestWriteSeconds: histogram('svc_manifest_write_seconds', 'Manifest write latency.', fast),
    ledgerEvents: counter('svc_ledger_events_total', 'Ledger events appended, by type.', ['type']),
    ledgerAppendFailures: counter('svc_ledger_append_failures_total', 'Ledger append failures (critical).'),
    planSeconds: histogram('svc_plan_seconds', 'Planning latency.', fast),
    httpRequests: counter('svc_http_requests_total', 'HTTP requests, by route and status class.', ['route', 'status']),
    httpSeconds: histogram('svc_http_request_seconds', 'HTTP request latency, by route.', fast, ['route']),
    authFailures: counter('svc_auth_failures_total', 'Rejected credentials.'),
    // Alert inputs (src/svc/alerts, docs/alerts.md): each must stay 0 in a healthy service.
    manifestWriteFailures: counter('svc_manifest_write_failures_total', 'Manifests that could not be written to the metadata store (critical).'),
    cacheCrossTenantHits: counter('svc_cache_cross_tenant_hits_total', "Cache lookups that returned another tenant's entry; refused, but isolation is broken (critical)."),
    verifierFailuresWithoutFallback: counter('svc_verifier_failures_without_fallback_total', 'Required verifier failures no fallback recovered (critical).'),
    // Workload adapters (docs/adapters.md).
    streamBytesAlreadyStored: counter('svc_adapter_stream_bytes_already_stored_total', 'Stream appends: bytes re-sent by the client that the stream already held (not stored again).'),
    trainingRunsAvoided: counter('svc_training_runs_avoided_total', 'Training runs answered from the recorded result of an identical run (measured).'),
    trainingCheckpointBytesAvoided: counter('svc_training_checkpoint_bytes_avoided_total', 'Checkpoint bytes not stored again because their tensors were already stored (measured).'),
    // Signed plugins (docs/plugins.md).
    pluginCalls: counter('svc_plugin_calls_total', 'Plugin calls, by plugin id and outcome (ok, error).', ['plugin', 'outcome']),
    pluginErrors: counter('svc_plugin_errors_total', 'Failed plugin calls, by plugin id and reason (timeout, memory, error, bad_output, crash); the plugin error rate is this over svc_plugin_calls_total.', ['plugin', 'reason']),
    pluginCallSeconds: histogram('svc_plugin_call_seconds', 'Plugin call latency in the sandbox, by plugin id.', fast, ['plugin']),
    pluginSignatureFailures: counter('svc_plugin_signature_failures_total', 'Plugin bundles refused by their signature check, by stage (install, enable, load) (critical).', ['stage']),
    legalHoldDeletionAttempts: counter('svc_legal_hold_deletion_attempts_total', 'Deletions refused because of a legal hold (critical).'),
  };
  // Every reason is exported from the start (0 until it happens), so dashboards and alerts see the series.
  for (const reason of BYTES_AVOIDED_REASONS) metrics.bytesAvoided.inc({ reason }, 0);
  for (const stage of ['install', 'enable', 'load']) metrics.pluginSignatureFailures.inc({ stage }, 0);
  for (const cache of PURGED_CACHES) metrics.cacheEntriesPurged.inc({ cache }, 0);
  return metrics;
}

/** `svc_bytes_avoided_total{reason}` values. `lifecycle`: see docs/observability.md (no svc path removes bytes yet). */
export const BYTES_AVOIDED_REASONS = ['dedupe', 'compression', 'lifecycle'] as const;

export type SvcMetrics = ReturnType<typeof createMetrics>;

/**
 * A counter whose values a component keeps in its own tally, read at scrape time (one value per label value), so
 * that the component stays free of metrics.
 */
function tallyCounter(metrics: SvcMetrics, name: string, help: string, label: string, read: () => Readonly<Record<string, number>>): void {
  new Counter({
    name,
    help,
    labelNames: [label],
    registers: [metrics.registry],
    collect() {
      this.reset();
      for (const [value, count] of Object.entries(read())) this.inc({ [label]: value }, count);
    },
  });
}

/** `svc_policy_evaluation_unavailable_total{mode}`: read from the policy engine's own tally. */
export function exportPolicyUnavailability(metrics: SvcMetrics, counts: () => Readonly<{ observe: number; enforce: number }>): void {
  tallyCounter(metrics, 'svc_policy_evaluation_unavailable_total', 'Policy evaluations that failed and were denied (fail closed), by mode; enforce is critical.', 'mode', () => {
    const c = counts();
    return { observe: c.observe, enforce: c.enforce };
  });
}

/**
 * The verified-chunk cache at scrape time: `svc_chunk_cache_bytes` (raw bytes held, bounded by
 * `storage.chunk_cache_bytes`) and `svc_chunk_cache_reads_total{result}` (hit, miss), from the cache's own tally.
 */
export function exportChunkCache(metrics: SvcMetrics, counters: () => Readonly<{ hits: number; misses: number; bytes: number }>): void {
  new Gauge({
    name: 'svc_chunk_cache_bytes',
    help: 'Raw bytes of verified chunks held in memory (bounded by storage.chunk_cache_bytes).',
    registers: [metrics.registry],
    collect() {
      this.set(counters().bytes);
    },
  });
  tallyCounter(metrics, 'svc_chunk_cache_reads_total', 'Chunk reads through the verified-chunk cache, by result (hit, miss).', 'result', () => {
    const c = counters();
    return { hit: c.hits, miss: c.misses };
  });
}

/**
 * A `{state}` gauge counted at scrape time (in the database, where every process sees the same rows), so the
 * capability it counts stays free of metrics. A failed count leaves the last values: a scrape must not fail because
 * the database is briefly busy.
 */
function countsByStateGauge(metrics: SvcMetrics, name: string, help: string, states: readonly string[], count: () => Promise<Readonly<Record<string, number>>>): void {
  new Gauge({
    name,
    help,
    labelNames: ['state'],
    registers: [metrics.registry],
    async collect() {
      try {
        const counts = await count();
        for (const state of states) this.set({ state }, counts[state] ?? 0);
      } catch {
        // keep the last values
      }
    },
  });
}

/** `svc_scheduler_jobs{state}`: jobs by state. */
export function exportSchedulerJobsByState(metrics: SvcMetrics, countByState: () => Promise<Record<string, number>>, states: readonly string[]): void {
  countsByStateGauge(metrics, 'svc_scheduler_jobs', 'Scheduler jobs by state (from the database at scrape time).', states, countByState);
}

/**
 * The AI record journal (docs/decisions/141) reports here: a row set aside is an acknowledged request whose work
 * unit, plan and compute manifest could not be written, so it counts as a manifest write failure (a critical alert)
 * and is logged (its journal seq and the database's error, never the records). `svc_ai_record_journal_rows{state}`
 * counts pending and set-aside rows at scrape time (always 0 on PostgreSQL, which has no journal).
 */
export function watchAiRecordJournal(journal: AiRecordJournal, metrics: SvcMetrics, log: OpLog): void {
  journal.watch({
    rowSetAside: (f) => {
      metrics.manifestWriteFailures.inc();
      log.alert({ event_type: 'ai_records.set_aside', journal_seq: f.seq, error: f.error }, 'AI request records could not be written; kept in ai_record_journal');
    },
    moveFailed: (err) => log.warn({ event_type: 'ai_records.move_failed', error: err.message }, 'moving AI records out of the journal failed; will retry'),
  });
  countsByStateGauge(
    metrics,
    'svc_ai_record_journal_rows',
    'AI record journal rows by state: pending (durable, waiting to move into their tables) and failed (set aside: their records could not be written; critical).',
    ['pending', 'failed'],
    async () => ({ ...(await journal.status()) }),
  );
}
