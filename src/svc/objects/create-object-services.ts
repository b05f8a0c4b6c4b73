/**
 * Wiring of the exact-bytes capability for the composition root: chunk store
 * (filesystem or S3, behind a verified-chunk cache), manifests, export/import, the
 * exact executor, execute, the object gateway and multipart uploads.
 */
import path from 'node:path';
import type { TenantGuard } from '../auth/tenant-guard.ts';
import type { SvcConfig } from '../config/schema.ts';
import type { ChunkStore } from '../chunk-store/chunk-store.ts';
import { type ChunkBackend, createChunkStore } from '../chunk-store/create-chunk-store.ts';
import type { FsChunkStore } from '../chunk-store/fs-chunk-store.ts';
import { VerifiedChunkCache } from '../chunk-store/verified-chunk-cache.ts';
import { ExactExecutor, type PluginCalls, type ExactExecutorDeps } from '../exact-bytes/exact-executor.ts';
import { type AiUnitExecutor, ExecuteService } from '../exact-bytes/execute-service.ts';
import type { LedgerAppender } from '../ledger/appender.ts';
import type { OpLog } from '../logs/oplog.ts';
import { ManifestExporter } from '../manifests/manifest-export.ts';
import { ManifestService } from '../manifests/manifest-service.ts';
import { exportChunkCache, type SvcMetrics } from '../observability/metrics.ts';
import type { Tracing } from '../observability/tracing.ts';
import type { PlanService } from '../plans/service.ts';
import type { PolicyEvaluator } from '../policy/types.ts';
import type { Store } from '../store/store.ts';
import type { WorkUnitService } from '../work-units/service.ts';
import { MultipartService } from './multipart-service.ts';
import { type ObjectGatewayDeps, ObjectGateway } from './object-gateway.ts';
import { FsPartStore, type PartStore } from './part-store.ts';

export interface ObjectServices {
  /** The chunk store as the services see it (cache in front of the configured backend). */
  chunks: ChunkStore;
  /** The configured backend, uncached (`storage.chunk_backend`): readiness probe, location, backend tooling. */
  chunkBackend: ChunkBackend;
  /**
   * The filesystem store's one-file-per-chunk layout and root (operators' tooling; chunks stored before packs).
   * New chunks are in packs: `chunkBackend.store` (test/helpers/chunk-damage.ts damages either).
   * @throws TypeError when chunks live in S3 (use `chunkBackend`)
   */
  readonly fsChunks: FsChunkStore;
  manifests: ManifestService;
  exporter: ManifestExporter;
  execute: ExecuteService;
  executor: ExactExecutor;
  gateway: ObjectGateway;
  multipart: MultipartService;
  /** Releases the chunk backend's connections; call after the last request finished. */
  close(): Promise<void>;
}

export interface ObjectServicesDeps {
  config: Readonly<SvcConfig>;
  stateDir: string;
  store: Store;
  ledger: LedgerAppender;
  log: OpLog;
  metrics: SvcMetrics;
  tracing: Tracing;
  tenants: TenantGuard;
  workUnits: WorkUnitService;
  plans: PlanService;
  policy: () => PolicyEvaluator;
  approvals: ExactExecutorDeps['approvals'];
  /** Executes stored AI work units (the AI gateway), for the one execute entry point. */
  aiUnits?: AiUnitExecutor;
  /** Legal holds: deletions of held data are refused (src/svc/legal-holds). */
  legalHolds?: ObjectGatewayDeps['legalHolds'];
  /** Signed plugins, for plans that name `plugin:<id>` transforms (src/svc/plugins). */
  plugins?: PluginCalls;
  /** The environment svc runs with (AWS credentials for the S3 chunk backend); default `process.env`. */
  env?: Record<string, string | undefined>;
}

/** Largest object the executor accepts (multipart included): the part limits allow at most this much anyway. */
function maxObjectBytes(config: Readonly<SvcConfig>): number {
  return config.multipart.max_parts * config.multipart.max_part_bytes;
}

/**
 * Parts are staged where every process can read them: in the chunks' S3 bucket with the S3 backend; with the
 * filesystem backend under this process's state dir (several processes then need the S3 backend, docs/deployment.md).
 */
async function partStoreFor(config: Readonly<SvcConfig>, chunkBackend: ChunkBackend, deps: ObjectServicesDeps): Promise<{ parts: PartStore; close(): void }> {
  if (chunkBackend.kind !== 's3') return { parts: new FsPartStore(path.join(deps.stateDir, 'uploads')), close: () => {} };
  // Imported here: a filesystem deployment never loads the AWS SDK (create-chunk-store.ts).
  const [{ S3PartStore }, { credentialsFromEnv }] = await Promise.all([import('./s3-part-store.ts'), import('../chunk-store/s3-client.ts')]);
  const s3 = config.storage.s3!;
  const parts = new S3PartStore({
    bucket: chunkBackend.objects.bucket,
    prefix: chunkBackend.objects.prefix,
    region: s3.region,
    endpoint: s3.endpoint,
    forcePathStyle: s3.force_path_style,
    credentials: credentialsFromEnv(deps.env ?? process.env),
  });
  return { parts, close: () => parts.close() };
}

export async function createObjectServices(deps: ObjectServicesDeps): Promise<ObjectServices> {
  const { config, store } = deps;
  const chunkBackend = await createChunkStore(config, deps.stateDir, { db: store.db, ...(deps.env ? { env: deps.env } : {}) });
  const chunks = new VerifiedChunkCache(chunkBackend.store, { maxBytes: config.storage.chunk_cache_bytes });
  exportChunkCache(deps.metrics, () => chunks.counters);
  const { parts, close: closeParts } = await partStoreFor(config, chunkBackend, deps);
  const manifests = new ManifestService({
    repo: store.manifests,
    computeManifests: store.aiManifests,
    chunks,
    ledger: deps.ledger,
    tenants: deps.tenants,
    log: deps.log,
    metrics: deps.metrics,
    tracing: deps.tracing,
  });
  const executor = new ExactExecutor({
    chunks,
    manifests,
    workUnitRepo: store.workUnits,
    metrics: deps.metrics,
    tracing: deps.tracing,
    dedupeScope: config.storage.dedupe_scope,
    maxObjectBytes: maxObjectBytes(config),
    zstdLevel: config.storage.zstd_level,
    approvals: deps.approvals,
    bundleName: () => deps.policy().activeBundle().name,
    ...(deps.plugins ? { plugins: deps.plugins } : {}),
  });
  const gateway = new ObjectGateway({
    objects: store.objects,
    workUnits: deps.workUnits,
    plans: deps.plans,
    executor,
    manifests,
    ledger: deps.ledger,
    tenants: deps.tenants,
    policy: deps.policy,
    ...(deps.legalHolds ? { legalHolds: deps.legalHolds } : {}),
  });
  return {
    chunks,
    chunkBackend,
    get fsChunks(): FsChunkStore {
      if (chunkBackend.kind !== 'filesystem') throw new TypeError(`chunks are stored in ${chunkBackend.location}, not on the filesystem`);
      return chunkBackend.files;
    },
    manifests,
    exporter: new ManifestExporter({ manifests: store.manifests, ledgerRepo: store.ledger, ledger: deps.ledger, chunks, tenants: deps.tenants }),
    execute: new ExecuteService({ workUnits: deps.workUnits, tenants: deps.tenants, plans: deps.plans, executor, ai: deps.aiUnits }),
    executor,
    gateway,
    multipart: new MultipartService({
      uploads: store.uploads,
      parts,
      gateway,
      ledger: deps.ledger,
      tenants: deps.tenants,
      limits: config.multipart,
    }),
    close: async () => {
      closeParts();
      await chunkBackend.close();
    },
  };
}
