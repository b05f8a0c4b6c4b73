/**
 * Composition root: configuration → store → ledger → domain services. REST,
 * gRPC and the CLI all receive this one object; nothing else constructs
 * services. Shutdown drains the ledger queue before closing the store.
 */
import { PackedChunkStore } from './chunk-store/packed-chunk-store.ts';
import { GcService } from './gc/gc-service.ts';
import { CachePurge } from './cache/cache-purge.ts';
import { ChunkMigrationService } from './chunk-store/chunk-migration.ts';
import path from 'node:path';
import { ClusterSync } from './cluster/cluster-sync.ts';
import { type AiServices, createAiServices } from './ai/compose/create-ai-services.ts';
import { StoredUnitExecutor } from './ai/gateway/stored-unit-executor.ts';
import { type Credentials, loadCredentials } from './auth/credentials.ts';
import { TenantGuard } from './auth/tenant-guard.ts';
import type { LoadedConfig } from './config/load.ts';
import type { SvcConfig } from './config/schema.ts';
import { LedgerAppender } from './ledger/appender.ts';
import { LedgerService } from './ledger/service.ts';
import { type OpLog, createOpLog } from './logs/oplog.ts';
import { type ObjectServices, createObjectServices } from './objects/create-object-services.ts';
import { LogService } from './logs/service.ts';
import { countLedgerEvents } from './observability/ledger-metrics.ts';
import { type SvcMetrics, createMetrics, exportPolicyUnavailability, exportSchedulerJobsByState, watchAiRecordJournal } from './observability/metrics.ts';
import { OperationUnits } from './operations/operation-units.ts';
import { TrackedOperations } from './operations/tracked-operations.ts';
import { type Tracing, createTracing } from './observability/tracing.ts';
import { PlanService } from './plans/service.ts';
import { ApprovalService } from './approvals/approval-service.ts';
import { loadOrCreateSigningKey } from './approvals/signing-key.ts';
import { PolicyService } from './policy/policy-service.ts';
import { AlertService } from './alerts/alert-service.ts';
import { LegalHoldService } from './legal-holds/legal-hold-service.ts';
import { PlatformService } from './platforms/platform-service.ts';
import { estimateConstants } from './reports/estimate-constants.ts';
import { ReportService } from './reports/report-service.ts';
import { DEFAULT_ROLLOUT_CONFIG } from './rollout/canary.ts';
import { alertingGuardrailListener } from './rollout/guardrail-alerts.ts';
import { RolloutService } from './rollout/rollout-service.ts';
import { DEFAULT_GUARDRAIL_CONFIG, SloGuardrail } from './rollout/slo-guardrail.ts';
import { Switchboard } from './rollout/switchboard.ts';
import { SchedulerService } from './scheduler/scheduler-service.ts';
import { BenchmarkService } from './benchmarks/benchmark-service.ts';
import { type AdapterServices, BUILTIN_ADAPTERS, createAdapterServices } from './adapters/create-adapter-services.ts';
import { createPluginService } from './plugins/create-plugin-service.ts';
import type { PluginService } from './plugins/plugin-service.ts';
import { RestoreTestService } from './restore-tests/restore-test-service.ts';
import { startRestoreTestSchedule } from './restore-tests/restore-test-schedule.ts';
import { jobWorkUnits } from './scheduler/job-work-units.ts';
import { startSchedulerRunner } from './scheduler/runner.ts';
import { shiftBoundsFor } from './scheduler/scheduler-config.ts';
import { ForecastFileService } from './scheduler/forecast-file.ts';
import { ForecastPullService } from './scheduler/forecast-providers/forecast-pull.ts';
import { WEBHOOK_SECRET_ENV, WebhookNotifier, webhookRetries } from './scheduler/webhook-notifier.ts';
import { describeDb } from './store/open-db.ts';
import { type Store, openStore } from './store/store.ts';
import { WorkUnitService } from './work-units/service.ts';
import { SvcError } from './errors.ts';
import { newTraceId } from './observability/trace-id.ts';
import { JOB_STATES } from './scheduler/job-record.ts';
import type { ExecuteService } from './exact-bytes/execute-service.ts';

export interface SvcApp {
  readonly config: Readonly<SvcConfig>;
  readonly stateDir: string;
  readonly databaseDescription: string;
  readonly credentials: Credentials;
  readonly store: Store;
  readonly ledger: LedgerAppender;
  readonly log: OpLog;
  readonly metrics: SvcMetrics;
  readonly tracing: Tracing;
  readonly tenants: TenantGuard;
  readonly workUnits: WorkUnitService;
  readonly plans: PlanService;
  readonly ledgerService: LedgerService;
  readonly logs: LogService;
  readonly policy: PolicyService;
  /** AI gateway and caches (src/svc/ai, src/svc/cache; docs/ai-gateway.md). */
  readonly ai: AiServices;
  /** Signed approvals; executors call `approvals.assertApproved` under a `requires_approval` obligation. */
  readonly approvals: ApprovalService;
  /** Canary selectors, admin switches and the SLO guardrail (`rollout.decide`, `rollout.switchboard`). */
  readonly rollout: RolloutService;
  /** Exact-bytes path: chunk store, manifests, execute, object gateway, multipart. */
  readonly objects: ObjectServices;
  /** Mutating calls that run as operation work units (object delete, cache store, approvals, switches, policy publish/reload). */
  readonly operations: TrackedOperations;
  /** Dashboard and other reports, computed from manifests and ledger rows (docs/reports.md). */
  readonly reports: ReportService;
  /** Deployment targets, their readiness and the capability matrix (docs/platforms.md). */
  readonly platforms: PlatformService;
  /** In-process evaluation of the spec's alerts (docs/alerts.md); `alert.fired` in the ledger for critical ones. */
  readonly alerts: AlertService;
  /** Legal holds on a tenant, prefix or manifest: block deletion (docs/alerts.md#legal-hold). */
  readonly legalHolds: LegalHoldService;
  /** Energy-aware scheduler for flexible jobs (docs/scheduler.md). */
  readonly scheduler: SchedulerService;
  /** Pull adapters for real forecasts (scheduler.forecast_providers). */
  readonly forecastPull: ForecastPullService;
  /** The forecast file in the state dir (scheduler.forecast_file): loaded at start-up, on change, SIGHUP and reload. */
  readonly forecastFile: ForecastFileService;
  /** Benchmark runs against this deployment, one at a time, at low priority (docs/benchmarks.md). */
  readonly benchmarks: BenchmarkService;
  /** Rehydration restore tests, on demand and on the configured interval (docs/restore-tests.md). */
  readonly restoreTests: RestoreTestService;
  /** Garbage collection of chunks and abandoned uploads (`svc gc`, docs/objects.md#garbage-collection). */
  readonly gc: GcService;
  /** `svc chunks migrate`: old one-file-per-chunk chunks into packs (docs/chunking.md#migrating-the-old-layout). */
  readonly chunkMigration: ChunkMigrationService;
  /** Workload adapters: lakehouse, stream, training (docs/adapters.md). */
  readonly adapters: AdapterServices;
  /** Signed plugins: transforms, verifiers and adapters run in a sandbox (docs/plugins.md). */
  readonly plugins: PluginService;
  close(): Promise<void>;
}

export interface CreateAppOptions {
  /** Generate a development API key when none is configured (`svc serve` on loopback). */
  allowDevKey?: boolean;
  /** PostgreSQL schema (tests isolate runs with it). */
  pgSchema?: string;
  env?: Record<string, string | undefined>;
}

export async function createSvcApp(loaded: LoadedConfig, options: CreateAppOptions = {}): Promise<SvcApp> {
  const { config } = loaded;
  const stateDir = path.resolve(config.state_dir);
  const target = { databaseUrl: config.storage.database_url, stateDir, pgSchema: options.pgSchema, sqliteSynchronous: config.storage.sqlite_synchronous };
  const credentials = loadCredentials({
    localApiKey: loaded.secrets.localApiKey,
    apiKeysJson: loaded.secrets.apiKeysJson,
    stateDir,
    allowDevKey: options.allowDevKey ?? false,
  });
  const store = await openStore(target);
  const log = createOpLog(stateDir, config.log_level);
  const metrics = createMetrics();
  const tracing = createTracing(options.env ?? process.env);
  const ledger = new LedgerAppender(store.ledger);
  countLedgerEvents(ledger.events, metrics);
  ledger.events.on('append_failed', () => {
    metrics.ledgerAppendFailures.inc();
    log.alert({ event_type: 'ledger.append_failed' }, 'ledger append failed');
  });
  watchAiRecordJournal(store.aiRecords, metrics, log);
  const tenants = new TenantGuard(ledger);
  const policy = await PolicyService.open({ stateDir, activeBundleName: config.policy.bundle_name, audit: ledger, documents: store.policyDocuments });
  exportPolicyUnavailability(metrics, () => policy.engine.unavailableCounts());
  const approvals = new ApprovalService({
    repository: store.approvals,
    key: await loadOrCreateSigningKey(stateDir),
    audit: ledger,
    activeBundle: () => policy.engine.activeBundle(),
    workUnitTenant: async (id) => (await store.workUnits.get(id))?.tenant,
  });
  const switchboard = await Switchboard.open({
    store: store.switches,
    audit: ledger,
    switchPolicyBundle: (target) => (target ? policy.switchBundle(target.name, target.version ?? undefined) : policy.switchBundle(config.policy.bundle_name)),
  });
  // Other processes on the same PostgreSQL database change bundles and switches too: adopt their changes (decision
  // 097). SQLite serves one process, whose bundle files and switches are already the whole truth (an operator's
  // hand-edited active.yaml is in force after a restart, as before).
  const clusterSync =
    store.db.dialect === 'postgres' ? new ClusterSync({ ledgerRepo: store.ledger, policy, switchboard, log, intervalMs: config.cluster?.sync_interval_ms ?? 1000 }) : undefined;
  await clusterSync?.start();
  const pluginRuntime = createPluginService({
    config,
    repo: store.plugins,
    ledger,
    metrics,
    switchedOff: () => switchboard.current().disabled_plugins,
    builtinAdapters: () => BUILTIN_ADAPTERS,
  });
  const plugins = pluginRuntime.plugins;
  const guardrail = new SloGuardrail({ ...DEFAULT_GUARDRAIL_CONFIG, ...config.guardrail }, { listener: alertingGuardrailListener(ledger, log) });
  const rollout = new RolloutService({ config: config.rollout ?? DEFAULT_ROLLOUT_CONFIG, switchboard, guardrail, activeBundle: () => policy.engine.activeBundle() });
  const workUnits = new WorkUnitService({ workUnits: store.workUnits, ledger, tenants, onCreated: (wu) => metrics.workUnits.inc({ kind: wu.kind }) });
  const plans = new PlanService({
    plans: store.plans,
    workUnits,
    ledger,
    tenants,
    policy: () => policy.engine,
    rollout,
    defaultMode: config.default_mode,
    onPlanned: (s) => metrics.planSeconds.observe(s),
    plugins,
  });
  const webhookSecret = (options.env ?? process.env)[WEBHOOK_SECRET_ENV];
  const webhooks = webhookSecret ? new WebhookNotifier({ secret: webhookSecret, audit: ledger, log, ...webhookRetries(options.env ?? process.env) }) : undefined;
  // `work_units` jobs run through the one execute entry point, created below (objects); bound once it exists.
  let executeEntry: ExecuteService | undefined;
  const scheduler = new SchedulerService({
    workUnits: jobWorkUnits({
      workUnits,
      execute: () => {
        if (!executeEntry) throw new SvcError('unavailable', 'svc is still starting');
        return executeEntry;
      },
    }),
    repository: store.schedulerJobs,
    audit: ledger,
    // The rollback switch "bypass optimisation" also disables shifting: every job runs at its earliest start.
    shiftingDisabled: () => switchboard.current().bypass_optimisation,
    shiftBounds: (tenant, kind) => shiftBoundsFor(config.scheduler, tenant, kind),
    policy: () => policy.engine,
    recordSubmission: async (ctx, id, fields) => {
      await workUnits.recordOperation({ ...ctx, traceId: ctx.traceId ?? newTraceId() }, id, fields);
    },
    webhooksEnabled: webhooks !== undefined,
    reportGraceMs: (config.scheduler?.report_grace_minutes ?? 60) * 60_000,
    onTransition: (job, to) => {
      webhooks?.notify(job, to);
      metrics.schedulerTransitions.inc({ state: to });
      if (to === 'scheduled' && job.run_at !== job.baseline_start) metrics.schedulerJobsShifted.inc();
      if (to === 'missed') metrics.schedulerMissedDeadlines.inc();
      if (to === 'succeeded' && job.baseline_gco2 !== null && job.planned_gco2 !== null && job.run_at === job.planned_start) {
        metrics.schedulerGco2AvoidedEstimate.inc(Math.max(0, job.baseline_gco2 - job.planned_gco2));
      }
    },
    onPlanned: (s) => metrics.schedulerPlanSeconds.observe(s),
  });
  exportSchedulerJobsByState(metrics, () => scheduler.countByState(), JOB_STATES);
  const forecastFile = new ForecastFileService({
    scheduler,
    configured: config.scheduler?.forecast_file ?? null,
    stateDir,
    pollSeconds: config.scheduler === undefined ? 10 : config.scheduler.forecast_file_poll_seconds,
    onEvent: (e) => {
      if ('error' in e) log.warn({ event_type: 'scheduler.forecast.file_rejected', trigger: e.trigger, error: e.error.message }, 'forecast file not loaded');
      else log.info({ event_type: 'scheduler.forecast.file_loaded', trigger: e.trigger, loaded: e.result.loaded, skipped: e.result.skipped, zones: e.result.zones }, 'forecast file loaded');
    },
  });
  await forecastFile.loadAtStartup();
  forecastFile.watch();
  const forecastPull = new ForecastPullService({ scheduler, config: config.scheduler, env: options.env ?? process.env });
  const pullMinutes = config.scheduler?.pull_interval_minutes ?? null;
  forecastPull.start(pullMinutes === null ? null : pullMinutes * 60_000, (r) => {
    if (r instanceof Error) log.warn({ event_type: 'scheduler.forecast.pull_failed', error: r.message }, 'forecast pull failed');
    else
      for (const o of r.outcomes) {
        if (o.error) log.warn({ event_type: 'scheduler.forecast.pull_failed', provider: o.provider, zone: o.zone, error: o.error }, 'forecast pull failed');
        else if (o.stale) log.warn({ event_type: 'scheduler.forecast.pull_stale', provider: o.provider, zone: o.zone, issued_at: o.issued_at }, 'provider forecast is stale');
      }
  });
  const runner = startSchedulerRunner(scheduler, log, Number((options.env ?? process.env).SVC_SCHEDULER_TICK_MS ?? 1000));
  const ai = createAiServices({ providersConfig: config.providers, env: options.env ?? process.env, store, ledger, metrics, tracing, policy: () => policy.engine, switchboard, rollout });
  const legalHolds = new LegalHoldService({ repo: store.legalHolds, ledger, tenants, onBlocked: () => metrics.legalHoldDeletionAttempts.inc() });
  const objects = await createObjectServices({
    config,
    stateDir,
    store,
    ledger,
    log,
    metrics,
    tracing,
    tenants,
    workUnits,
    plans,
    policy: () => policy.engine,
    approvals,
    aiUnits: new StoredUnitExecutor(ai.gateway),
    legalHolds,
    plugins,
    env: options.env ?? process.env,
  });
  executeEntry = objects.execute;
  // Started after every service registered its metrics, so the baseline snapshot sees them all.
  const alerts = new AlertService({ registry: metrics.registry, ledger, log });
  await alerts.start();
  const operations = new TrackedOperations({
    units: new OperationUnits(workUnits),
    exactCache: ai.exactCache,
    semanticCache: ai.semanticCache,
    approvals,
    switchboard,
    policy,
    objects: objects.gateway,
    exporter: objects.exporter,
  });
  const benchmarks = new BenchmarkService({ repo: store.benchmarkRuns, ledger, log });
  const adapters = createAdapterServices({ config, store, objects, tenants, metrics, ledger });
  adapters.registry.attachPlugins(plugins);
  adapters.operations.attachPlugins((ctx, adapter, operation, body) => plugins.callAdapter(ctx, adapter, operation, body));
  const restoreTests = new RestoreTestService({
    manifests: objects.manifests,
    manifestRows: store.manifests,
    objects: store.objects,
    exactCache: store.cacheEntries,
    semanticCache: store.semanticCache,
    ledger,
    criticalPrefixes: config.restore_tests?.critical_prefixes ?? [],
    defaultSampleSize: config.restore_tests?.sample_size ?? 20,
    tableVerifier: adapters.tableVerifier,
  });
  const gc = new GcService({
    config,
    store: objects.chunkBackend.store instanceof PackedChunkStore ? objects.chunkBackend.store : undefined,
    index: store.chunkPacks,
    leases: store.leases,
    manifests: store.manifests,
    legalHolds: store.legalHolds,
    multipart: objects.multipart,
    ledger,
  });
  const chunkMigration = new ChunkMigrationService({
    store: objects.chunkBackend.store instanceof PackedChunkStore ? objects.chunkBackend.store : undefined,
    ledger,
  });
  const restoreSchedule = startRestoreTestSchedule(restoreTests, config.restore_tests, log);
  // Expired exact and semantic cache entries, deleted in batches by one process at a time (decision 184).
  const cachePurge = new CachePurge({
    tables: { exact: store.cacheEntries, semantic: store.semanticCache },
    lease: store.leases,
    intervalMs: (config.cache?.purge_interval_seconds ?? 60) * 1000,
    batchSize: config.cache?.purge_batch_size ?? 250,
    onPurged: (cache, rows) => metrics.cacheEntriesPurged.inc({ cache }, rows),
    onError: (err) => log.warn({ event_type: 'cache.purge_failed', error: err instanceof Error ? err.message : String(err) }, 'cache purge failed; the next round retries'),
  });
  cachePurge.start();
  return {
    config,
    stateDir,
    databaseDescription: describeDb(target),
    credentials,
    store,
    ledger,
    log,
    metrics,
    tracing,
    tenants,
    workUnits,
    plans,
    ledgerService: new LedgerService({ repo: store.ledger, appender: ledger, tenants, target }),
    logs: new LogService({ log, tenants }),
    policy,
    ai,
    approvals,
    rollout,
    objects,
    operations,
    reports: new ReportService({
      rows: store.reportRows,
      tenants,
      constants: estimateConstants(config.reports?.estimates),
      defaultWindowDays: config.reports?.default_window_days ?? 30,
      models: () => ai.catalog.all().map((r) => `${r.provider.name}/${r.model.id}`),
      logicalDuplicates: (tenant) => adapters.lakehouse.duplicateManifests(tenant),
    }),
    alerts,
    legalHolds,
    platforms: new PlatformService({ config, env: options.env ?? process.env, pgSchema: options.pgSchema }),
    scheduler,
    forecastPull,
    forecastFile,
    benchmarks,
    restoreTests,
    gc,
    chunkMigration,
    adapters,
    plugins,
    async close() {
      await clusterSync?.stop();
      await restoreSchedule.stop();
      await cachePurge.stop();
      await benchmarks.close();
      await forecastFile.stop();
      await forecastPull.stop();
      alerts.close();
      await runner.stop();
      await scheduler.drained();
      await ai.close();
      await ledger.drained();
      await objects.close();
      await pluginRuntime.close();
      await tracing.shutdown().catch(() => undefined);
      await log.flush();
      await store.close();
    },
  };
}
