/**
 * What a product benchmark suite is: an id, what it reports, the budget it
 * runs within, and a run function that reports progress. The same suites run
 * offline (`npm run bench -- <suite>`) and on a deployment
 * (`POST /v1/benchmarks/runs`, `svc benchmark run`).
 */
import { Type, type Static } from 'typebox';
import type { BenchReport } from './bench-report.ts';

export const SUITE_IDS = ['object-exact-v1', 'prompt-cache-v1', 'load-local-v1'] as const;
export type SuiteId = (typeof SUITE_IDS)[number];

/** Hard ceilings a request cannot raise: a benchmark must stay bounded on a live host. */
export const MAX_BUDGET_SECONDS = 900;
export const MAX_BUDGET_BYTES = 1024 * 1024 * 1024;

export const SuiteBudget = Type.Object(
  {
    max_seconds: Type.Integer({ minimum: 5, maximum: MAX_BUDGET_SECONDS, description: 'Wall-clock budget; the run is stopped (failed, time_budget_exceeded) past it plus a grace of 30 s.' }),
    max_bytes: Type.Integer({ minimum: 1024 * 1024, maximum: MAX_BUDGET_BYTES, description: 'Upper bound on the object bytes the suite generates and ingests.' }),
  },
  { additionalProperties: false },
);
export type SuiteBudget = Static<typeof SuiteBudget>;

export interface SuiteProgress {
  phase: string;
  step: number;
  steps: number;
}

export interface SuiteInput {
  budget: SuiteBudget;
  progress(p: SuiteProgress): void;
}

export interface SuiteInfo {
  id: SuiteId;
  description: string;
  /** The figures the report carries (spec: Benchmark suites). */
  figures: readonly string[];
  default_budget: SuiteBudget;
}

export interface ProductSuite extends SuiteInfo {
  run(input: SuiteInput): Promise<BenchReport>;
}

/** `performance.now()` time by which a phase must stop so that the run ends within its budget. */
export function phaseDeadline(runStarted: number, budget: SuiteBudget, share: number): number {
  return Math.min(runStarted + budget.max_seconds * 1000, performance.now() + budget.max_seconds * 1000 * share);
}
