/**
 * The `scheduler` config section: policy bounds on shifting and the forecast
 * file (docs/scheduler.md, "Policy bounds" and "Forecast file"). Defaults
 * leave shifting bounded only by each job's deadline.
 */
import Type, { type Static } from 'typebox';

const MaxDelay = Type.Union([Type.Integer({ minimum: 0, maximum: 31 * 24 * 60 }), Type.Null()], {
  default: null,
  description: 'Longest shift past the earliest start, in minutes; null: up to deadline − duration.',
});

export const SchedulerConfig = Type.Object(
  {
    max_delay_minutes: MaxDelay,
    tenants: Type.Record(
      Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$' }),
      Type.Object(
        {
          max_delay_minutes: Type.Optional(MaxDelay),
          shifting: Type.Optional(Type.Boolean({ description: "false: the tenant's jobs always run at their earliest start (plan_reason shifting_denied_by_policy)." })),
        },
        { additionalProperties: false },
      ),
      { default: {}, description: 'Per-tenant bounds; a tenant entry overrides max_delay_minutes.' },
    ),
    forecast_file: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
      default: null,
      description: 'Forecast points loaded at start-up ({source?, points:[…]}); null: <state_dir>/scheduler/forecast.json when it exists.',
    }),
  },
  { additionalProperties: false },
);
export type SchedulerConfig = Static<typeof SchedulerConfig>;

/** How far a tenant's jobs may shift: `shift: false` pins them to the earliest start; `maxDelayMs` null = no bound. */
export interface ShiftBounds {
  shift: boolean;
  maxDelayMs: number | null;
}

export function shiftBoundsFor(config: SchedulerConfig | undefined, tenant: string): ShiftBounds {
  const entry = config?.tenants?.[tenant];
  const minutes = entry?.max_delay_minutes !== undefined ? entry.max_delay_minutes : (config?.max_delay_minutes ?? null);
  return { shift: entry?.shifting !== false, maxDelayMs: minutes === null ? null : minutes * 60_000 };
}
