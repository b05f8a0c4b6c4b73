/**
 * Capabilities × targets: which feature works on which engine and backend,
 * and which test (run by which CI job) proves it. `.ci/run` runs `npm test`
 * with SVC_TEST_DATABASE_URL set, so the PostgreSQL variants run there too.
 */
import { TARGET_IDS, type TargetId } from './targets.ts';

export type Support = 'supported' | 'partial' | 'unsupported';

export interface MatrixCell {
  support: Support;
  note?: string;
}

export interface Capability {
  id: string;
  title: string;
  cells: Record<TargetId, MatrixCell>;
  /** Test files that exercise the capability on the targets marked supported. */
  proven_by: string[];
}

const ALL: MatrixCell = { support: 'supported' };
const every = (cell: MatrixCell): Record<TargetId, MatrixCell> => Object.fromEntries(TARGET_IDS.map((t) => [t, cell])) as Record<TargetId, MatrixCell>;
const CONTAINER_NOTE = { support: 'partial', note: 'same code; no published image or container CI job yet' } as const;

export const CI_JOBS = {
  sqlite: '.ci/run → npm test (SQLite variants)',
  postgres: '.ci/run → npm test with SVC_TEST_DATABASE_URL (PostgreSQL variants)',
  s3: '.ci/run → npm test (s3rver, an S3-protocol server in the test process)',
} as const;

export const CAPABILITIES: readonly Capability[] = [
  {
    id: 'exact_bytes',
    title: 'Exact-bytes ingest, dedupe, compression and verified rehydration',
    cells: { ...every(ALL), container: CONTAINER_NOTE },
    proven_by: ['test/objects/object-gateway.test.ts', 'test/chunk-store/chunk-store.contract.test.ts', 'test/chunk-store/s3-backend.test.ts'],
  },
  {
    id: 'multipart',
    title: 'Multipart upload',
    cells: { ...every(ALL), container: CONTAINER_NOTE },
    proven_by: ['test/objects/multipart.test.ts'],
  },
  {
    id: 'ledger_chain',
    title: 'Hash-chained ledger with group commit',
    cells: { ...every(ALL), container: CONTAINER_NOTE },
    proven_by: ['test/foundation/ledger.test.ts', 'test/store/foundation.contract.test.ts'],
  },
  {
    id: 'several_processes',
    title: 'Several svc processes sharing state',
    cells: {
      embedded: { support: 'unsupported', note: 'SQLite is opened by one process' },
      postgresql: { support: 'partial', note: 'the ledger is shared safely (advisory lock); a filesystem chunk store must then be a shared volume with link(2)' },
      s3: { support: 'unsupported', note: 'metadata in SQLite is single-process' },
      cluster: { support: 'supported', note: 'the two-process ledger test proves the chain; S3 conditional create keeps first writes unambiguous' },
      container: CONTAINER_NOTE,
    },
    proven_by: ['test/foundation/ledger.test.ts (two processes on PostgreSQL)'],
  },
  {
    id: 'ai_gateway',
    title: 'AI gateway, exact and semantic caches',
    cells: { ...every(ALL), container: CONTAINER_NOTE },
    proven_by: ['test/ai/gateway.test.ts', 'test/ai/rollout.test.ts', 'test/store/ai-caches.contract.test.ts'],
  },
  {
    id: 'policy_approvals',
    title: 'Policy bundles, approvals, rollout switches',
    cells: { ...every(ALL), container: CONTAINER_NOTE },
    proven_by: ['test/policy/policy-api.test.ts', 'test/store/approvals-switches.contract.test.ts'],
  },
  {
    id: 'reports',
    title: 'Dashboard report from manifest and ledger rows',
    cells: { ...every(ALL), container: CONTAINER_NOTE },
    proven_by: ['test/reports/dashboard.test.ts'],
  },
  {
    id: 'grpc',
    title: 'gRPC surface',
    cells: { ...every(ALL), container: CONTAINER_NOTE },
    proven_by: ['test/grpc/services.test.ts'],
  },
  {
    id: 'platform_validation',
    title: 'svc platform validate (offline target checks)',
    cells: { ...every(ALL), container: { support: 'partial', note: 'validates the storage target the container uses' } },
    proven_by: ['test/platforms/platforms.test.ts'],
  },
];

export function capabilityMatrix(): { targets: readonly TargetId[]; ci_jobs: typeof CI_JOBS; capabilities: readonly Capability[] } {
  return { targets: TARGET_IDS, ci_jobs: CI_JOBS, capabilities: CAPABILITIES };
}
