/**
 * A benchmark run started on a deployment: request schema, record and list
 * query. Lifecycle: `running` → `completed` (a report was produced) or
 * `failed` (the suite threw, its process died, the time budget ran out, or
 * the process that owned it stopped heartbeating — `interrupted`).
 */
import { Type, type Static } from 'typebox';
import { SUITE_IDS, SuiteBudget, type SuiteId, type SuiteProgress } from './suite.ts';

export const BENCHMARK_RUN_STATES = ['running', 'completed', 'failed'] as const;
export type BenchmarkRunState = (typeof BENCHMARK_RUN_STATES)[number];

export const StartBenchmarkRequest = Type.Object(
  {
    suite: Type.Union(SUITE_IDS.map((s) => Type.Literal(s)), { description: 'Suite id (GET /v1/benchmarks lists them).' }),
    budget: Type.Optional(Type.Partial(SuiteBudget, { additionalProperties: false, description: "Overrides of the suite's default budget, within the hard ceilings." })),
  },
  { additionalProperties: false },
);
export type StartBenchmarkRequest = Static<typeof StartBenchmarkRequest>;

export const BenchmarkRunListQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    continuation_token: Type.Optional(Type.String({ pattern: '^bm_[0-9a-hjkmnp-tv-z]{26}$' })),
  },
  { additionalProperties: false },
);

export const BenchmarkResultsQuery = Type.Object({ format: Type.Optional(Type.Union([Type.Literal('json'), Type.Literal('markdown')], { default: 'json' })) }, { additionalProperties: false });

export interface BenchmarkRun {
  run_id: string;
  suite: SuiteId;
  state: BenchmarkRunState;
  budget: SuiteBudget;
  progress: SuiteProgress & { updated_at?: string };
  actor: string;
  started_at: string;
  heartbeat_at: string;
  finished_at: string | null;
  /** `suite_error`, `process_exited`, `time_budget_exceeded`, `interrupted`, `server_shutdown`. */
  failure_reason: string | null;
  /** SHA-256 of the stored JSON results (also in the ledger event). */
  results_sha256: string | null;
}
