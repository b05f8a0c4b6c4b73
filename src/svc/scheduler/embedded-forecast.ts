/**
 * The offline default forecast: the zone's annual average carbon intensity
 * (Electricity Maps yearly data shipped by `@tgwf/co2`) shaped by a typical
 * daily profile. It is an ESTIMATE and every job planned on it says so
 * (`forecast_source: "embedded-estimate:…"`).
 *
 * The daily profile is illustrative, not measured: overnight near the mean,
 * a morning ramp, a midday dip (solar), an evening peak (demand, gas
 * peakers), in UTC hours. It is normalised to mean 1 so the annual average
 * is preserved. Real zones differ (and local time is not applied); operators
 * load real forecasts for that (docs/scheduler.md).
 */
import { electricityMaps } from '@tgwf/co2/data';
import type { ForecastPoint } from './job-record.ts';

const RAW_PROFILE = [0.96, 0.94, 0.92, 0.92, 0.93, 0.96, 1.02, 1.07, 1.04, 0.97, 0.9, 0.86, 0.84, 0.85, 0.88, 0.94, 1.03, 1.12, 1.18, 1.17, 1.12, 1.06, 1.01, 0.98];
const MEAN = RAW_PROFILE.reduce((a, b) => a + b, 0) / RAW_PROFILE.length;
/** Multiplier per UTC hour, mean exactly 1. */
export const DAILY_PROFILE: readonly number[] = RAW_PROFILE.map((v) => v / MEAN);

interface YearlyZone {
  carbonIntensity?: { value?: number };
}
const YEARLY = (electricityMaps as unknown as { yearly2025: { data: Record<string, YearlyZone> } }).yearly2025.data;
export const EMBEDDED_SOURCE = 'embedded-estimate:electricity-maps-yearly-2025+typical-daily-profile';

/** Annual average gCO2/kWh for a zone, or undefined when the zone is unknown. */
export function annualIntensity(zone: string): number | undefined {
  const v = YEARLY[zone]?.carbonIntensity?.value;
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

export function isKnownZone(zone: string): boolean {
  return annualIntensity(zone) !== undefined;
}

/** Hourly points covering [from, to) for a known zone. */
export function embeddedForecast(zone: string, from: Date, to: Date): ForecastPoint[] {
  const base = annualIntensity(zone);
  if (base === undefined) return [];
  const points: ForecastPoint[] = [];
  const hour = 3_600_000;
  for (let t = Math.floor(from.getTime() / hour) * hour; t < to.getTime(); t += hour) {
    const h = new Date(t).getUTCHours();
    points.push({ zone, start: new Date(t).toISOString(), end: new Date(t + hour).toISOString(), gco2_per_kwh: Math.round(base * DAILY_PROFILE[h]! * 100) / 100 });
  }
  return points;
}
