/**
 * The storage interface of svc: one `Db` (SQLite or PostgreSQL) and the
 * repositories written once against it. Capabilities add their repository
 * here; the contract suite (test/store) runs all of them on both engines.
 */
import type { Db } from './db.ts';
import { migrate } from './migrate.ts';
import { type DbTarget, openDb } from './open-db.ts';
import { AdapterRecordRepository } from './repositories/adapter-records.ts';
import { AiManifestRepository } from './repositories/ai-manifests.ts';
import { AiRecordJournal, settleAiRecords } from './repositories/ai-record-journal.ts';
import { ChunkPackRepository } from './repositories/chunk-packs.ts';
import { LeaseRepository } from './repositories/leases.ts';
import { CacheEntryRepository } from './repositories/cache-entries.ts';
import { SqlApprovalRepository } from './repositories/approvals.ts';
import { LedgerRepository } from './repositories/ledger.ts';
import { ManifestRepository } from './repositories/manifests.ts';
import { ObjectRepository } from './repositories/objects.ts';
import { UploadRepository } from './repositories/uploads.ts';
import { PlanRepository } from './repositories/plans.ts';
import { LegalHoldRepository } from './repositories/legal-holds.ts';
import { BenchmarkRunRepository } from './repositories/benchmark-runs.ts';
import { ReportRowsRepository } from './repositories/report-rows.ts';
import { SchedulerJobRepository } from './repositories/scheduler-jobs.ts';
import { PluginRepository } from './repositories/plugins.ts';
import { SemanticCacheRepository } from './repositories/semantic-cache.ts';
import { SqlSwitchStore } from './repositories/switches.ts';
import { PolicyDocumentRepository } from './repositories/policy-documents.ts';
import { WorkUnitRepository } from './repositories/work-units.ts';

export interface Store {
  readonly db: Db;
  readonly workUnits: WorkUnitRepository;
  readonly plans: PlanRepository;
  readonly ledger: LedgerRepository;
  readonly approvals: SqlApprovalRepository;
  readonly switches: SqlSwitchStore;
  readonly policyDocuments: PolicyDocumentRepository;
  readonly manifests: ManifestRepository;
  readonly objects: ObjectRepository;
  readonly uploads: UploadRepository;
  readonly cacheEntries: CacheEntryRepository;
  readonly semanticCache: SemanticCacheRepository;
  readonly aiManifests: AiManifestRepository;
  /** Where the AI gateway writes a request's work unit, plan and compute manifest (journalled on SQLite, docs/decisions/141). */
  readonly aiRecords: AiRecordJournal;
  /** Read-only rows the reports are computed from (src/svc/reports). */
  readonly reportRows: ReportRowsRepository;
  readonly legalHolds: LegalHoldRepository;
  readonly schedulerJobs: SchedulerJobRepository;
  readonly benchmarkRuns: BenchmarkRunRepository;
  /** Workload adapter records (src/svc/adapters). */
  readonly adapterRecords: AdapterRecordRepository;
  /** Installed plugin bundles (src/svc/plugins). */
  readonly plugins: PluginRepository;
  /** The pack index of the chunk store (src/svc/chunk-store/packed-chunk-store.ts) and garbage collection's lease. */
  readonly chunkPacks: ChunkPackRepository;
  /** Named leases for jobs one process at a time runs (garbage collection, the cache purge). */
  readonly leases: LeaseRepository;
  close(): Promise<void>;
}

export function storeOver(db: Db): Store {
  const aiRecords = new AiRecordJournal(db);
  return {
    db,
    workUnits: new WorkUnitRepository(db),
    plans: new PlanRepository(db),
    ledger: new LedgerRepository(db),
    approvals: new SqlApprovalRepository(db),
    switches: new SqlSwitchStore(db),
    policyDocuments: new PolicyDocumentRepository(db),
    manifests: new ManifestRepository(db),
    objects: new ObjectRepository(db),
    uploads: new UploadRepository(db),
    cacheEntries: new CacheEntryRepository(db),
    semanticCache: new SemanticCacheRepository(db),
    aiManifests: new AiManifestRepository(db),
    aiRecords,
    reportRows: new ReportRowsRepository(db),
    legalHolds: new LegalHoldRepository(db),
    schedulerJobs: new SchedulerJobRepository(db),
    benchmarkRuns: new BenchmarkRunRepository(db),
    adapterRecords: new AdapterRecordRepository(db),
    plugins: new PluginRepository(db),
    chunkPacks: new ChunkPackRepository(db),
    leases: new LeaseRepository(db),
    close: async () => {
      await aiRecords.close();
      await db.close();
    },
  };
}

/** Opens the configured engine and applies pending migrations. */
export async function openStore(target: DbTarget): Promise<Store> {
  const db = openDb(target);
  try {
    await migrate(db);
    // AI records a crash left in the journal move into their tables before anything reads them.
    await settleAiRecords(db);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw err;
  }
  return storeOver(db);
}
