/**
 * The `scheduler` config section: policy bounds on shifting, the forecast
 * file and the forecast providers (docs/scheduler.md, "Policy bounds",
 * "Forecast file", "Forecast providers"). Defaults
 * leave shifting bounded only by each job's deadline.
 */
import Type, { type Static } from 'typebox';
import { PROVIDER_KINDS } from './forecast-providers/provider.ts';

const ForecastProvider = Type.Object(
  {
    kind: Type.Enum([...PROVIDER_KINDS]),
    base_url: Type.String({ pattern: '^https?://[^\\s]+$', description: 'API base URL (Electricity Maps https://api.electricitymap.org, WattTime https://api.watttime.org, UK https://api.carbonintensity.org.uk, or your Carbon Aware SDK WebAPI).' }),
    api_key_env: Type.Optional(Type.String({ pattern: '^[A-Z_][A-Z0-9_]{0,127}$', description: 'Environment variable holding the key (WattTime: "user:password"); never the key itself.' })),
    zones: Type.Array(Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' }), { minItems: 1, maxItems: 100 }),
    zone_map: Type.Optional(Type.Record(Type.String(), Type.String({ minLength: 1, maxLength: 128 }), { description: "svc zone → the provider's location/region name (e.g. DE → germanywestcentral)." })),
    timeout_ms: Type.Integer({ minimum: 100, maximum: 120_000, default: 10_000 }),
  },
  { additionalProperties: false },
);

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
    forecast_providers: Type.Array(ForecastProvider, { default: [], maxItems: 16, description: 'Pull adapters for real forecasts (docs/scheduler.md).' }),
    pull_interval_minutes: Type.Union([Type.Integer({ minimum: 5, maximum: 1440 }), Type.Null()], { default: null, description: 'Pull every N minutes; null: only on demand.' }),
    forecast_horizon_hours: Type.Integer({ minimum: 1, maximum: 168, default: 48 }),
    forecast_file: Type.Union([Type.String({ minLength: 1 }), Type.Null()], {
      default: null,
      description: 'Forecast points ({source?, points:[…]}) loaded at start-up, on change, on SIGHUP and on POST /v1/scheduler/forecasts/reload; null: <state_dir>/scheduler/forecast.json when it exists.',
    }),
    forecast_file_poll_seconds: Type.Union([Type.Integer({ minimum: 1, maximum: 3600 }), Type.Null()], {
      default: 10,
      description: 'How often the forecast file is checked for a change (mtime, size); null: not watched (start-up, SIGHUP and the reload route only).',
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
