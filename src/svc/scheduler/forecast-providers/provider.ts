/**
 * Pull adapters for real carbon-intensity forecasts (docs/scheduler.md,
 * "Forecast providers"). Each maps one provider's response into the forecast
 * points POST /v1/scheduler/forecasts stores; nothing here stores anything.
 * Keys come from the environment variable the config names, are sent only to
 * the configured base URL, and never reach logs or errors.
 */
import { SvcError } from '../../errors.ts';
import type { ForecastPoint } from '../job-record.ts';

export const PROVIDER_KINDS = ['carbon-aware-sdk', 'electricity-maps', 'watttime', 'uk-carbon-intensity'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

export interface ProviderSettings {
  kind: ProviderKind;
  /** Base URL of the provider's API (or of a self-hosted Carbon Aware SDK WebAPI). */
  baseUrl: string;
  /** Environment variable holding the API key (WattTime: "user:password"). */
  apiKey: string | undefined;
  timeoutMs: number;
  fetch: typeof fetch;
}

export interface ForecastRequest {
  /** svc's zone name (the points carry it). */
  zone: string;
  /** The provider's name for that zone (region, location); default the zone. */
  providerZone: string;
  from: Date;
  to: Date;
}

export type ForecastPuller = (settings: ProviderSettings, request: ForecastRequest) => Promise<ForecastPoint[]>;

/** A failure talking to a provider: a clear, key-free message. */
export function providerError(kind: ProviderKind, message: string): SvcError {
  return new SvcError('adapter_unavailable', `forecast provider ${kind}: ${message}`);
}

export async function getJson(settings: ProviderSettings, url: URL, headers: Record<string, string>): Promise<unknown> {
  let res: Response;
  try {
    res = await settings.fetch(url, { headers: { accept: 'application/json', ...headers }, redirect: 'error', signal: AbortSignal.timeout(settings.timeoutMs) });
  } catch (err) {
    throw providerError(settings.kind, (err as Error).name === 'TimeoutError' ? `no answer within ${settings.timeoutMs} ms` : `cannot reach ${url.host}`);
  }
  const text = await res.text();
  if (!res.ok) throw providerError(settings.kind, `HTTP ${res.status} from ${url.host}${url.pathname}`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw providerError(settings.kind, `response from ${url.host}${url.pathname} is not JSON`);
  }
}

/** Checks one mapped point; a provider answer with one bad point is refused whole. */
export function point(kind: ProviderKind, zone: string, start: unknown, end: unknown, value: unknown, index: number): ForecastPoint {
  const s = typeof start === 'string' || typeof start === 'number' ? Date.parse(String(start)) : Number.NaN;
  const e = typeof end === 'string' || typeof end === 'number' ? Date.parse(String(end)) : Number.NaN;
  if (!Number.isFinite(s) || !Number.isFinite(e) || e <= s) throw providerError(kind, `point ${index}: missing or invalid time`);
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 5000) throw providerError(kind, `point ${index}: intensity is not a number in 0–5000 gCO2/kWh`);
  return { zone, start: new Date(s).toISOString(), end: new Date(e).toISOString(), gco2_per_kwh: Math.round(value * 1000) / 1000 };
}

/** Points between `from` and `to` only (providers often answer with more). */
export function within(points: ForecastPoint[], from: Date, to: Date): ForecastPoint[] {
  return points.filter((p) => Date.parse(p.end) > from.getTime() && Date.parse(p.start) < to.getTime());
}

export function asArray(kind: ProviderKind, value: unknown, what: string): unknown[] {
  if (!Array.isArray(value)) throw providerError(kind, `${what} is not a list`);
  return value;
}

export function asObject(kind: ProviderKind, value: unknown, what: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw providerError(kind, `${what} is not an object`);
  return value as Record<string, unknown>;
}
