/**
 * A month of hourly carbon intensity for one zone, and a job mix, both
 * deterministic from a seed. Synthetic, and labelled so everywhere:
 *
 * - Level: the zone's 2025 annual average from Electricity Maps yearly data as
 *   shipped by @tgwf/co2 (the same figure the embedded forecast uses).
 * - Daily shape: the embedded forecast's typical daily profile (midday solar
 *   dip, evening peak), deepened on sunny days and flattened on overcast ones.
 * - Weekly shape: weekends 8 % below weekdays (lower demand), as grid
 *   operators' published load curves show.
 * - Weather: an AR(1) day-to-day factor (persistence 0.7, σ 12 %) and ±5 %
 *   hourly noise.
 * Forecasts (what svc would pull): issued every hour, covering the next 48 h
 * (svc's default forecast_horizon_hours; UK Carbon Intensity publishes 48 h,
 * Electricity Maps and WattTime 24–72 h by plan). Each is the trace times
 * (1 + σ(lead)·z): σ grows with lead time, 4 % + 0.3 %/h (capped at 20 %), in
 * line with published day-ahead errors of 5–15 % for carbon-intensity
 * forecasts; z is an AR(1) series along the forecast's hours (ρ = 0.9), because
 * real forecast errors persist for hours (a weather front arriving late
 * misforecasts a whole afternoon), drawn afresh for each issue.
 */
import { DAILY_PROFILE, annualIntensity } from '../../src/svc/scheduler/embedded-forecast.ts';
import type { IntensitySegment } from '../../src/svc/scheduler/planner.ts';
import { mulberry32 } from '../../test/helpers/prng.ts';

const H = 3_600_000;

/** mulberry32 (shared with the randomised tests): small, fast, deterministic. */
export const prng = mulberry32;

export function gaussian(rand: () => number): number {
  const u = Math.max(rand(), 1e-12);
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
}

export function syntheticTrace(zone: string, startMs: number, hours: number, seed: number): IntensitySegment[] {
  const level = annualIntensity(zone);
  if (level === undefined) throw new Error(`no annual intensity for zone ${zone}`);
  const rand = prng(seed);
  const segments: IntensitySegment[] = [];
  let weather = 0;
  for (let h = 0; h < hours; h++) {
    const t = startMs + h * H;
    const date = new Date(t);
    if (date.getUTCHours() === 0 || h === 0) weather = 0.7 * weather + 0.12 * gaussian(rand);
    const daily = DAILY_PROFILE[date.getUTCHours()]!;
    // Sunny days (weather < 0) deepen the daily swing, overcast days flatten it.
    const swing = 1 - Math.max(-0.5, Math.min(0.5, weather * 2));
    const shaped = 1 + (daily - 1) * swing;
    const weekly = date.getUTCDay() === 0 || date.getUTCDay() === 6 ? 0.92 : 1.0;
    const noise = 1 + 0.05 * (2 * rand() - 1);
    segments.push({ start: t, end: t + H, gco2PerKwh: Math.max(5, level * shaped * weekly * (1 + weather) * noise) });
  }
  return segments;
}

export interface ForecastModel {
  horizonHours: number;
  /** σ at lead 0 and its growth per hour of lead, as fractions; capped at sigmaMax. */
  sigma0: number;
  sigmaPerHour: number;
  sigmaMax: number;
  /** Hour-to-hour correlation of the error along one forecast. */
  rho: number;
}

export const FORECAST_MODEL: ForecastModel = { horizonHours: 48, sigma0: 0.04, sigmaPerHour: 0.003, sigmaMax: 0.2, rho: 0.9 };

/**
 * The forecast issued at `issuedAt` (a whole hour inside the trace): the trace's next `horizonHours` hours with
 * error. `model: null` gives the true trace over the same horizon (an error-free forecast).
 */
export function issuedForecast(trace: readonly IntensitySegment[], issuedAt: number, model: ForecastModel | null, seed: number): IntensitySegment[] {
  const first = Math.round((issuedAt - trace[0]!.start) / H);
  const hours = trace.slice(Math.max(0, first), Math.max(0, first) + (model?.horizonHours ?? FORECAST_MODEL.horizonHours));
  if (model === null) return hours;
  const rand = prng(seed);
  let z = gaussian(rand);
  return hours.map((s, lead) => {
    if (lead > 0) z = model.rho * z + Math.sqrt(1 - model.rho * model.rho) * gaussian(rand);
    const sigma = Math.min(model.sigmaMax, model.sigma0 + model.sigmaPerHour * lead);
    return { ...s, gco2PerKwh: Math.max(1, s.gco2PerKwh * (1 + sigma * z)) };
  });
}

export interface BenchJob {
  earliest: number;
  deadline: number;
  durationMs: number;
  energyKwh: number;
}

/** Mixed durations (15 min – 8 h) and slack (1 h – 2 days), earliest starts spread over the month minus 3 days. */
export function jobMix(count: number, startMs: number, hours: number, seed: number): BenchJob[] {
  const rand = prng(seed);
  const durations = [0.25, 0.5, 1, 2, 4, 8];
  const slacks = [1, 2, 4, 8, 12, 24, 48];
  const latestEarliest = startMs + (hours - 72) * H;
  return Array.from({ length: count }, () => {
    const earliest = startMs + Math.floor(rand() * ((latestEarliest - startMs) / 60_000)) * 60_000;
    const durationMs = durations[Math.floor(rand() * durations.length)]! * H;
    const slackMs = slacks[Math.floor(rand() * slacks.length)]! * H;
    return { earliest, deadline: earliest + durationMs + slackMs, durationMs, energyKwh: 1 + Math.round(rand() * 90) / 10 };
  });
}
