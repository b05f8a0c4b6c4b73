/**
 * The constants behind every estimated saving, defined once: default value,
 * unit and where the default comes from. Operators override values under
 * `reports.estimates` in the configuration (docs/reports.md); the report
 * prints the values it used next to each estimate.
 *
 * The defaults are public order-of-magnitude figures, not measurements of
 * any particular deployment: replace them with your own fleet's numbers.
 */
import { type Static, Type } from 'typebox';

export interface EstimateConstant {
  value: number;
  unit: string;
  source: string;
}

export const DEFAULT_ESTIMATE_CONSTANTS = {
  storage_usd_per_gb_month: {
    value: 0.023,
    unit: 'USD/GB-month',
    source: 'AWS S3 Standard list price, first 50 TB, us-east-1 (aws.amazon.com/s3/pricing)',
  },
  horizon_months: {
    value: 12,
    unit: 'months',
    source: 'svc default: one year of retention for bytes not stored',
  },
  storage_watts_per_tb: {
    value: 1.0,
    unit: 'W/TB',
    source: 'order of magnitude for nearline HDD capacity (about 8-10 W per 16-20 TB drive incl. enclosure share), times a PUE near 1.5',
  },
  replication_factor: {
    value: 3,
    unit: 'copies',
    source: 'three-way replication, the usual default of distributed object stores (e.g. Ceph, HDFS)',
  },
  joules_per_large_model_call: {
    value: 1080,
    unit: 'J/call',
    source: 'about 0.3 Wh per typical chat query (Epoch AI, "How much energy does ChatGPT use?", 2025)',
  },
  joules_per_token: {
    value: 1.08,
    unit: 'J/token',
    source: '0.3 Wh per query of roughly 1,000 tokens (same Epoch AI estimate), per token',
  },
  grid_g_co2_per_kwh: {
    value: 480,
    unit: 'gCO2/kWh',
    source: 'world average carbon intensity of electricity 2023 (Ember, Global Electricity Review 2024); the scheduler will supply per-window figures when it exists',
  },
} as const satisfies Record<string, EstimateConstant>;

export type EstimateConstantName = keyof typeof DEFAULT_ESTIMATE_CONSTANTS;
export type EstimateConstants = Record<EstimateConstantName, EstimateConstant>;

/** `reports` configuration section: overrides of estimate constants, default window. */
export const ReportsConfig = Type.Object(
  {
    /** Default report window when a request names no `from`. */
    default_window_days: Type.Integer({ minimum: 1, maximum: 3660, default: 30 }),
    estimates: Type.Optional(
      Type.Object(
        Object.fromEntries(Object.keys(DEFAULT_ESTIMATE_CONSTANTS).map((k) => [k, Type.Optional(Type.Number({ minimum: 0 }))])) as Record<EstimateConstantName, ReturnType<typeof Type.Optional<ReturnType<typeof Type.Number>>>>,
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);
export type ReportsConfig = Static<typeof ReportsConfig>;

/** Defaults with the configured values applied; an overridden constant says so in its source. */
export function estimateConstants(overrides: Partial<Record<EstimateConstantName, number>> | undefined): EstimateConstants {
  const out = {} as EstimateConstants;
  for (const [name, c] of Object.entries(DEFAULT_ESTIMATE_CONSTANTS) as Array<[EstimateConstantName, EstimateConstant]>) {
    const v = overrides?.[name];
    out[name] = v === undefined ? { ...c } : { value: v, unit: c.unit, source: `configuration (reports.estimates.${name}); default ${c.value} from: ${c.source}` };
  }
  return out;
}
