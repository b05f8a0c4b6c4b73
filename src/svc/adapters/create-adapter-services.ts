/** Wires the built-in workload adapters over the exact-bytes path (docs/adapters.md). */
import type { TenantGuard } from '../auth/tenant-guard.ts';
import type { SvcConfig } from '../config/schema.ts';
import type { ObjectServices } from '../objects/create-object-services.ts';
import type { TableVerifier } from '../restore-tests/restore-test-service.ts';
import type { Store } from '../store/store.ts';
import { AdapterOperations } from './adapter-operations.ts';
import { AdapterRegistry } from './adapter-registry.ts';
import { LAKEHOUSE, LakehouseAdapter } from './lakehouse/lakehouse-adapter.ts';
import { STREAM, StreamAdapter } from './stream/stream-adapter.ts';
import { TRAINING, TrainingAdapter } from './training/training-adapter.ts';
import type { LedgerAppender } from '../ledger/appender.ts';
import type { SvcMetrics } from '../observability/metrics.ts';

/** Names of the built-in adapters (a plugin adapter may not take one). */
export const BUILTIN_ADAPTERS: readonly string[] = [LAKEHOUSE, STREAM, TRAINING];

export interface AdapterServices {
  registry: AdapterRegistry;
  lakehouse: LakehouseAdapter;
  stream: StreamAdapter;
  training: TrainingAdapter;
  /** Every adapter-specific operation by name (gRPC AdapterService/Call). */
  operations: AdapterOperations;
  /** The restore test `table_logical` seam; undefined while the lakehouse adapter is disabled. */
  tableVerifier: TableVerifier | undefined;
}

export function createAdapterServices(deps: { config: SvcConfig; store: Store; objects: ObjectServices; tenants: TenantGuard; metrics: SvcMetrics; ledger: LedgerAppender }): AdapterServices {
  const registry = new AdapterRegistry(deps.config.adapters?.disabled ?? []);
  const maxBodyBytes = deps.config.adapters?.max_body_bytes ?? 64 * 1024 * 1024;
  registry.register({
    name: LAKEHOUSE,
    family: 'lakehouse',
    version: '1',
    source: 'builtin',
    summary: 'Parquet table files: exact bytes plus logical facts (schema, rows, column checksums); duplicate datasets; table logical verification',
    operations: ['tables', 'tables/list', 'tables/versions', 'duplicates'],
  });
  const lakehouse = new LakehouseAdapter({ registry, records: deps.store.adapterRecords, gateway: deps.objects.gateway, manifests: deps.objects.manifests, tenants: deps.tenants, maxBodyBytes });
  registry.register({
    name: STREAM,
    family: 'stream',
    version: '1',
    source: 'builtin',
    summary: 'JSONL/NDJSON streams: segment-aware appends store only new bytes; time-range reads; unused logs',
    operations: ['append', 'read', 'streams/list', 'unused'],
  });
  const stream = new StreamAdapter({
    registry,
    records: deps.store.adapterRecords,
    gateway: deps.objects.gateway,
    tenants: deps.tenants,
    maxBodyBytes,
    onAlreadyStored: (n) => deps.metrics.streamBytesAlreadyStored.inc(n),
  });
  registry.register({
    name: TRAINING,
    family: 'training',
    version: '1',
    source: 'builtin',
    summary: 'safetensors checkpoints chunked on tensor boundaries (unchanged tensors stored once); training-run fingerprints answer identical runs from their recorded result',
    operations: ['checkpoints', 'checkpoints/list', 'runs/submit', 'runs/complete'],
  });
  const training = new TrainingAdapter({
    registry,
    records: deps.store.adapterRecords,
    gateway: deps.objects.gateway,
    manifests: deps.objects.manifests,
    tenants: deps.tenants,
    ledger: deps.ledger,
    maxBodyBytes,
    metrics: {
      checkpointBytesAvoided: (n) => deps.metrics.trainingCheckpointBytesAvoided.inc(n),
      runAvoided: (gpuSeconds) => {
        deps.metrics.trainingRunsAvoided.inc();
        deps.metrics.trainingGpuSecondsAvoided.inc(gpuSeconds);
      },
    },
  });
  const operations = new AdapterOperations(registry);
  operations.add(TRAINING, 'checkpoints', (ctx, b) => training.putCheckpoint(ctx, b));
  operations.add(TRAINING, 'checkpoints/list', (ctx, b) => training.checkpoints(ctx, b));
  operations.add(TRAINING, 'runs/submit', (ctx, b) => training.submitRun(ctx, b));
  operations.add(TRAINING, 'runs/complete', (ctx, b) => training.completeRun(ctx, b));
  operations.add(STREAM, 'append', (ctx, b) => stream.append(ctx, b));
  operations.add(STREAM, 'read', (ctx, b) => stream.read(ctx, b));
  operations.add(STREAM, 'streams/list', (ctx, b) => stream.streams(ctx, b));
  operations.add(STREAM, 'unused', (ctx, b) => stream.unused(ctx, b));
  operations.add(LAKEHOUSE, 'tables', (ctx, b) => lakehouse.putTable(ctx, b));
  operations.add(LAKEHOUSE, 'tables/list', (ctx, b) => lakehouse.listTables(ctx, b));
  operations.add(LAKEHOUSE, 'tables/versions', (ctx, b) => lakehouse.versions(ctx, b));
  operations.add(LAKEHOUSE, 'duplicates', (ctx, b) => lakehouse.duplicates(ctx, b));
  const lakehouseEnabled = registry.list().some((a) => a.name === LAKEHOUSE && a.status === 'enabled');
  return {
    registry,
    lakehouse,
    stream,
    training,
    operations,
    tableVerifier: lakehouseEnabled ? { tables: (tenant) => lakehouse.tableManifests(tenant), verify: (ctx, recordId, manifestId) => lakehouse.verify(ctx, recordId, manifestId) } : undefined,
  };
}
