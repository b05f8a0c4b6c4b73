/**
 * Pull adapters for real carbon-intensity forecasts (docs/scheduler.md,
 * "Forecast providers"). Each maps one provider's response into the forecast
 * points POST /v1/scheduler/forecasts stores, plus the time the provider says
 * it issued them; nothing here stores anything. Keys come from the environment
 * variable the config names, are sent only to the configured base URL, and
 * never reach logs or errors.
 */
import { SvcError } from '../../errors.ts';
import type { ForecastPoint } from '../job-record.ts';

export const PROVIDER_KINDS = ['carbon-aware-sdk', 'electricity-maps', 'watttime', 'uk-carbon-intensity'] as const;
export type ProviderKind = (typeof PROVIDER_KINDS)[number];

/** The largest provider answer read (a 72 h WattTime forecast at 5 min is ~70 kB). */
export const MAX_RESPONSE_BYTES = 8 * 1024 * 1024;

export interface ProviderSettings {
  kind: ProviderKind;
  /** Base URL of the provider's API (or of a self-hosted Carbon Aware SDK WebAPI). */
  baseUrl: string;
  /** Value of the environment variable holding the key (WattTime: "user:password"). */
  apiKey: string | undefined;
  /** One deadline per HTTP exchange: connect, headers and the whole body. */
  timeoutMs: number;
  fetch: typeof fetch;
  /** Aborts every exchange (svc is shutting down). */
  signal?: AbortSignal | undefined;
  /** Shared by the zones of one provider in one pull (WattTime logs in once). */
  session: Map<string, string>;
}

export interface ForecastRequest {
  /** svc's zone name (the points carry it). */
  zone: string;
  /** The provider's name for that zone (region, location); default the zone. */
  providerZone: string;
  from: Date;
  to: Date;
}

export interface PulledForecast {
  points: ForecastPoint[];
  /** When the provider says it produced the forecast; absent when its API does not say. */
  issuedAt?: Date | undefined;
}

export type ForecastPuller = (settings: ProviderSettings, request: ForecastRequest) => Promise<PulledForecast>;

/** A failure talking to a provider: a clear, key-free message. */
export function providerError(kind: ProviderKind, message: string): SvcError {
  return new SvcError('adapter_unavailable', `forecast provider ${kind}: ${message}`);
}

/** Base URL with exactly one trailing slash, so relative paths append to it. */
export function baseOf(settings: ProviderSettings): string {
  return `${settings.baseUrl.replace(/\/+$/, '')}/`;
}

class TooLarge extends Error {}

async function readCapped(res: Response, max: number): Promise<string> {
  const declared = Number(res.headers.get('content-length'));
  if (Number.isFinite(declared) && declared > max) {
    await res.body?.cancel().catch(() => undefined);
    throw new TooLarge();
  }
  if (!res.body) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    total += chunk.byteLength;
    if (total > max) throw new TooLarge();
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** GET one JSON document: the timeout covers the body too; the answer is size-capped; no redirects (the key stays with the configured host). */
export async function getJson(settings: ProviderSettings, url: URL, headers: Record<string, string>): Promise<unknown> {
  const timeout = AbortSignal.timeout(settings.timeoutMs);
  const signal = settings.signal ? AbortSignal.any([timeout, settings.signal]) : timeout;
  const where = `${url.host}${url.pathname}`;
  const failure = (err: unknown): SvcError => {
    if (err instanceof TooLarge) return providerError(settings.kind, `response from ${where} is larger than ${MAX_RESPONSE_BYTES} bytes`);
    if (timeout.aborted) return providerError(settings.kind, `no answer within ${settings.timeoutMs} ms`);
    if (settings.signal?.aborted) return providerError(settings.kind, 'pull stopped (svc is shutting down)');
    return providerError(settings.kind, `cannot reach ${url.host}`);
  };
  let res: Response;
  let text: string;
  try {
    res = await settings.fetch(url, { headers: { accept: 'application/json', ...headers }, redirect: 'error', signal });
    text = await readCapped(res, MAX_RESPONSE_BYTES);
  } catch (err) {
    throw failure(err);
  }
  if (!res.ok) throw providerError(settings.kind, `HTTP ${res.status} from ${where}`);
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw providerError(settings.kind, `response from ${where} is not JSON`);
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

/** A provider's issue time, when it gives a valid one. */
export function issueTime(value: unknown): Date | undefined {
  if (typeof value !== 'string') return undefined;
  const t = Date.parse(value);
  return Number.isFinite(t) ? new Date(t) : undefined;
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
