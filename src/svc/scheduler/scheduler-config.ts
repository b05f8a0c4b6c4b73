/**
 * The `scheduler` config section: bounds on shifting per tenant and per job
 * kind, forecast providers and the forecast file (docs/scheduler.md, "Policy
 * bounds", "Forecast file", "Forecast providers"). Defaults leave shifting bounded only by each
 * job's deadline. Yes/no questions about shifting (a contract, a role, an
 * attribute) are asked of the policy bundle instead (action `scheduler.shift`).
 */
import Type, { type Static } from 'typebox';
import { PROVIDER_KINDS } from './forecast-providers/provider.ts';
import type { JobKind } from './job-record.ts';

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

// No default inside a tenant entry: one that leaves max_delay_minutes out keeps the global bound (null lifts it).
const EntryMaxDelay = Type.Union([Type.Integer({ minimum: 0, maximum: 31 * 24 * 60 }), Type.Null()], { description: 'Longest shift past the earliest start, in minutes; null: up to deadline − duration. Left out: the global max_delay_minutes.' });

const TenantBound = Type.Object(
  {
    max_delay_minutes: Type.Optional(EntryMaxDelay),
    shifting: Type.Optional(Type.Boolean({ description: "false: the tenant's jobs always run at their earliest start (plan_reason shifting_denied_by_policy)." })),
  },
  { additionalProperties: false },
);

// A kind's bound only tightens: null (the default) adds none.
const KindBound = Type.Object(
  {
    max_delay_minutes: Type.Union([Type.Integer({ minimum: 0, maximum: 31 * 24 * 60 }), Type.Null()], {
      default: null,
      description: "Longest shift past the earliest start for this kind, in minutes; the tighter of this and the tenant's (or global) bound applies.",
    }),
    shifting: Type.Boolean({ default: true, description: 'false: jobs of this kind always run at their earliest start (plan_reason shifting_denied_by_policy).' }),
  },
  { additionalProperties: false },
);

export const SchedulerConfig = Type.Object(
  {
    max_delay_minutes: MaxDelay,
    tenants: Type.Record(Type.String({ pattern: '^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$' }), TenantBound, {
      default: {},
      description: 'Per-tenant bounds; a tenant entry overrides max_delay_minutes.',
    }),
    kinds: Type.Object(
      { external: Type.Optional(KindBound), work_units: Type.Optional(KindBound) } satisfies Record<JobKind, unknown>,
      { additionalProperties: false, default: {}, description: 'Bounds per job kind, on top of the tenant (or global) bound.' },
    ),
    report_grace_minutes: Type.Integer({
      minimum: 0,
      maximum: 7 * 24 * 60,
      default: 60,
      description: 'An external job that has not reported its outcome this long after its deadline fails with outcome no_report.',
    }),
    forecast_providers: Type.Array(ForecastProvider, { default: [], maxItems: 16, description: 'Pull adapters for real forecasts (docs/scheduler.md).' }),
    pull_interval_minutes: Type.Union([Type.Integer({ minimum: 5, maximum: 1440 }), Type.Null()], { default: null, description: 'Pull every N minutes, and once at start-up; null: only on demand (POST /v1/scheduler/forecasts/pull).' }),
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

/**
 * The bounds for one job: the tenant's entry (else the global `max_delay_minutes`), tightened by its kind's entry.
 * Shifting is off when either says `shifting: false`.
 */
export function shiftBoundsFor(config: SchedulerConfig | undefined, tenant: string, kind: JobKind = 'external'): ShiftBounds {
  const entry = config?.tenants?.[tenant];
  const byKind = config?.kinds?.[kind];
  const tenantMinutes = entry?.max_delay_minutes !== undefined ? entry.max_delay_minutes : (config?.max_delay_minutes ?? null);
  const kindMinutes = byKind?.max_delay_minutes ?? null;
  const minutes = tenantMinutes === null ? kindMinutes : kindMinutes === null ? tenantMinutes : Math.min(tenantMinutes, kindMinutes);
  return { shift: entry?.shifting !== false && byKind?.shifting !== false, maxDelayMs: minutes === null ? null : minutes * 60_000 };
}
