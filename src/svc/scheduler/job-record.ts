/**
 * The scheduler's job record and request schemas (one TypeBox source for REST,
 * OpenAPI and domain validation). Field choices: docs/decisions/080-scheduler-job-record.md.
 */
import Type, { type Static } from 'typebox';
import { CONTRACTS } from '../work-units/work-unit.ts';

export const JOB_STATES = ['scheduled', 'running', 'succeeded', 'failed', 'cancelled', 'missed'] as const;
export type JobState = (typeof JOB_STATES)[number];
export const TERMINAL_STATES: ReadonlySet<JobState> = new Set(['succeeded', 'failed', 'cancelled', 'missed']);

/** Why the run time is what it is; recorded on every job. */
export type PlanReason =
  | 'lowest_forecast_emissions'
  | 'observe_mode'
  | 'shifting_disabled'
  | 'shifting_denied_by_policy'
  | 'forecast_stale'
  | 'forecast_partial'
  | 'forecast_incomplete'
  | 'no_window';

export interface SchedulerJob {
  id: string;
  tenant: string;
  /**
   * `external`: svc only times it; the caller starts it when told and reports completion.
   * `work_units`: svc executes the stored work units in `work_unit_ids` when due (a byte_object ingest, an export,
   * an AI batch of embedding or chat requests) and completes the job with what came of them.
   */
  kind: JobKind;
  state: JobState;
  mode: 'observe' | 'enforce';
  /**
   * The contract policy is asked about shifting under (`scheduler.shift`): the request's, else the work units' own
   * when they agree, else `exact_bytes` (decision 089).
   */
  contract: string;
  zone: string;
  priority: number;
  work_unit_id: string | null;
  earliest_start: string;
  deadline: string;
  duration_s: number;
  energy_kwh: number;
  metadata: Record<string, string>;
  /** Run-at-earliest, the baseline every saving is measured against. */
  baseline_start: string;
  /** The start the planner chose (lowest integrated forecast emissions). */
  planned_start: string;
  /** When the runner dispatches it: `planned_start` in enforce mode, else the baseline. */
  run_at: string;
  baseline_gco2: number | null;
  planned_gco2: number | null;
  shift_minutes: number;
  forecast_source: string;
  forecast_age_s: number | null;
  plan_reason: PlanReason;
  lease_owner: string | null;
  lease_expires_at: string | null;
  started_at: string | null;
  completed_at: string | null;
  outcome: string | null;
  actor: string;
  created_at: string;
  updated_at: string;
  /** Notified with a signed POST when the job starts and when it reaches a final state (docs/scheduler.md, Webhooks). */
  webhook_url: string | null;
  /** kind `work_units`: the stored work units to execute, in order. */
  work_unit_ids: string[];
  /** kind `work_units`: what each execution produced; null until the job ends. */
  result: JobResult | null;
}

export const JOB_KINDS = ['external', 'work_units'] as const;
export type JobKind = (typeof JOB_KINDS)[number];

/** One unit of a `work_units` job that ran (or had already run: `previously_executed`, its manifest reported). */
export interface ExecutedUnit {
  work_unit_id: string;
  manifest_id: string;
  accepted: boolean;
  previously_executed?: true;
}

export interface JobResult {
  executed: ExecutedUnit[];
  /** The execution that failed (the ones after it were not run). */
  error?: { work_unit_id: string; code: string; message: string };
}

const Zone = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$', description: 'Grid zone (Electricity Maps zone code, e.g. DE, FR, GB).' });
const Instant = Type.String({ format: 'date-time' });

export const CreateJobRequest = Type.Object(
  {
    tenant: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    kind: Type.Optional(
      Type.Union([Type.Literal('external'), Type.Literal('work_units')], {
        description: '`external` (default): svc times it, the caller runs it. `work_units`: svc executes `work_unit_ids` when due.',
      }),
    ),
    work_unit_ids: Type.Optional(
      Type.Array(Type.String({ pattern: '^wu_[0-9a-hjkmnp-tv-z]{26}$' }), { minItems: 1, maxItems: 100, uniqueItems: true, description: 'kind work_units: stored work units of the tenant, executed in order.' }),
    ),
    earliest_start: Type.Optional(Type.String({ format: 'date-time', description: 'Default: now.' })),
    deadline: Instant,
    duration_seconds: Type.Integer({ minimum: 1, maximum: 31 * 86400 }),
    energy_kwh: Type.Optional(Type.Number({ minimum: 0 })),
    average_power_w: Type.Optional(Type.Number({ minimum: 0 })),
    zone: Zone,
    priority: Type.Optional(Type.Integer({ minimum: 0, maximum: 9 })),
    mode: Type.Optional(Type.Union([Type.Literal('observe'), Type.Literal('enforce')])),
    contract: Type.Optional(
      Type.Union(CONTRACTS.map((c) => Type.Literal(c)), { description: "Policy is asked about shifting the job under this contract (default: the work units' own when they agree, else exact_bytes)." }),
    ),
    work_unit_id: Type.Optional(Type.String({ pattern: '^wu_[0-9a-hjkmnp-tv-z]{26}$' })),
    metadata: Type.Optional(Type.Record(Type.String({ maxLength: 64 }), Type.String({ maxLength: 512 }))),
    webhook_url: Type.Optional(
      Type.String({ maxLength: 2048, pattern: '^https?://[^\\s]+$', description: 'POSTed a signed body when the job starts and when it ends (needs SVC_SCHEDULER_WEBHOOK_SECRET).' }),
    ),
  },
  { additionalProperties: false },
);
export type CreateJobRequest = Static<typeof CreateJobRequest>;

export const CompleteJobRequest = Type.Object(
  { outcome: Type.Union([Type.Literal('succeeded'), Type.Literal('failed')]) },
  { additionalProperties: false },
);
export type CompleteJobRequest = Static<typeof CompleteJobRequest>;

export const ForecastPoint = Type.Object(
  { zone: Zone, start: Instant, end: Instant, gco2_per_kwh: Type.Number({ minimum: 0, maximum: 5000 }) },
  { additionalProperties: false },
);
export type ForecastPoint = Static<typeof ForecastPoint>;

export const LoadForecastRequest = Type.Object(
  {
    source: Type.Optional(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$' })),
    points: Type.Array(ForecastPoint, { minItems: 1, maxItems: 50_000 }),
  },
  { additionalProperties: false },
);
export type LoadForecastRequest = Static<typeof LoadForecastRequest>;

export const JobListQuery = Type.Object(
  {
    tenant: Type.Optional(Type.String()),
    state: Type.Optional(Type.Union(JOB_STATES.map((s) => Type.Literal(s)))),
    zone: Type.Optional(Zone),
    after: Type.Optional(Type.String({ description: 'Cursor: the last job id of the previous page.' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })),
  },
  { additionalProperties: false },
);
