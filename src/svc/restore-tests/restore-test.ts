/** Restore test request and result (docs/restore-tests.md). */
import { Type, type Static } from 'typebox';

export const RESTORE_TEST_KINDS = ['sampled_exact', 'critical_full', 'table_logical', 'cache_source', 'manifest_migration'] as const;
export type RestoreTestKind = (typeof RESTORE_TEST_KINDS)[number];

export const RestoreTestRequest = Type.Object(
  {
    kind: Type.Union(RESTORE_TEST_KINDS.map((k) => Type.Literal(k))),
    tenant: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    sample_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, description: 'sampled_exact: manifests to restore (default restore_tests.sample_size, 20)' })),
    prefixes: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 1024 }), { minItems: 1, maxItems: 100, description: 'critical_full: logical_ref prefixes of the critical datasets (default restore_tests.critical_prefixes)' })),
  },
  { additionalProperties: false },
);
export type RestoreTestRequest = Static<typeof RestoreTestRequest>;

export interface RestoreTestFailure {
  manifest_id?: string;
  chunk_id?: string;
  /** `exact:<key>` or `semantic:<entry id>` for cache_source. */
  entry?: string;
  reason: string;
}

export interface RestoreTestResult {
  run_id: string;
  kind: RestoreTestKind;
  /** `not_applicable` is never `passed`: nothing was checked (table_logical without an adapter, no critical datasets). */
  status: 'passed' | 'failed' | 'not_applicable';
  tenant: string | null;
  started_at: string;
  finished_at: string;
  checked: number;
  failures: RestoreTestFailure[];
  details: Record<string, unknown>;
}
