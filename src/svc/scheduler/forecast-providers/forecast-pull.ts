/**
 * Pulls forecasts from the configured providers (config `scheduler.forecast_providers`)
 * and loads them through the scheduler's own `loadForecast` (same validation,
 * re-plans scheduled jobs), with the provider's issue time so a provider serving
 * an old forecast is seen as stale. On demand (POST /v1/scheduler/forecasts/pull,
 * `svc scheduler forecast --pull`) and, when `scheduler.pull_interval_minutes`
 * is set, periodically (off by default). One provider or zone failing does not
 * stop the others; each outcome is reported, and a failure leaves earlier points
 * in place (the staleness rule then protects deadlines).
 */
import { makePrincipal, requirePermission } from '../../auth/principal.ts';
import { SvcError } from '../../errors.ts';
import type { DomainContext } from '../../policy/audit-event.ts';
import { SYSTEM_ACTOR } from '../../policy/audit-event.ts';
import { newTraceId } from '../../observability/trace-id.ts';
import type { SchedulerConfig } from '../scheduler-config.ts';
import { FORECAST_MAX_AGE_MS, type SchedulerService } from '../scheduler-service.ts';
import { pullCarbonAwareSdk } from './carbon-aware-sdk.ts';
import { pullElectricityMaps } from './electricity-maps.ts';
import type { ForecastPuller, ProviderKind } from './provider.ts';
import { pullUkCarbonIntensity } from './uk-carbon-intensity.ts';
import { pullWattTime } from './watttime.ts';

const PULLERS: Record<ProviderKind, ForecastPuller> = {
  'carbon-aware-sdk': pullCarbonAwareSdk,
  'electricity-maps': pullElectricityMaps,
  watttime: pullWattTime,
  'uk-carbon-intensity': pullUkCarbonIntensity,
};

export interface PullOutcome {
  provider: ProviderKind;
  zone: string;
  /** Points stored. */
  loaded: number;
  /** Points not stored: a forecast issued later already covers their time, or they ended more than a day ago. */
  skipped?: number;
  /** When the provider issued the forecast (its own time, else the pull time). */
  issued_at?: string;
  /** The provider's forecast is older than the staleness limit: plans fall back to the earliest start. */
  stale?: true;
  error?: string;
}

export class ForecastPullService {
  readonly #scheduler: SchedulerService;
  readonly #config: SchedulerConfig['forecast_providers'];
  readonly #horizonMs: number;
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #fetch: typeof fetch;
  readonly #now: () => Date;
  readonly #stop = new AbortController();
  readonly #inFlight = new Set<Promise<unknown>>();
  #timer: NodeJS.Timeout | undefined;
  #periodicRunning = false;

  constructor(o: { scheduler: SchedulerService; config: SchedulerConfig | undefined; env: Readonly<Record<string, string | undefined>>; fetch?: typeof fetch; now?: () => Date }) {
    this.#scheduler = o.scheduler;
    this.#config = o.config?.forecast_providers ?? [];
    this.#horizonMs = (o.config?.forecast_horizon_hours ?? 48) * 3_600_000;
    this.#env = o.env;
    this.#fetch = o.fetch ?? globalThis.fetch;
    this.#now = o.now ?? (() => new Date());
  }

  get configured(): number {
    return this.#config.length;
  }

  /** Pulls every configured provider and zone now (admin:switches, as loading points by hand). */
  async pull(ctx: DomainContext): Promise<{ outcomes: PullOutcome[] }> {
    requirePermission(ctx.principal, 'admin:switches');
    if (this.#config.length === 0) throw new SvcError('invalid_request', 'no forecast providers are configured (scheduler.forecast_providers)');
    if (this.#stop.signal.aborted) throw new SvcError('unavailable', 'svc is shutting down');
    const run = this.#pullAll(ctx);
    this.#inFlight.add(run);
    try {
      return await run;
    } finally {
      this.#inFlight.delete(run);
    }
  }

  async #pullAll(ctx: DomainContext): Promise<{ outcomes: PullOutcome[] }> {
    const from = this.#now();
    const to = new Date(from.getTime() + this.#horizonMs);
    const outcomes: PullOutcome[] = [];
    for (const p of this.#config) {
      const settings = {
        kind: p.kind,
        baseUrl: p.base_url,
        apiKey: p.api_key_env ? this.#env[p.api_key_env] : undefined,
        timeoutMs: p.timeout_ms,
        fetch: this.#fetch,
        signal: this.#stop.signal,
        session: new Map<string, string>(),
      };
      for (const zone of p.zones) {
        try {
          const pulled = await PULLERS[p.kind](settings, { zone, providerZone: p.zone_map?.[zone] ?? zone, from, to });
          if (pulled.points.length === 0) throw new SvcError('adapter_unavailable', `forecast provider ${p.kind}: no points for ${zone} in the next ${this.#horizonMs / 3_600_000} h`);
          // A provider clock ahead of ours must not make a forecast look newer than it can be.
          const issuedAt = pulled.issuedAt && pulled.issuedAt.getTime() < from.getTime() ? pulled.issuedAt : from;
          const r = await this.#scheduler.loadForecast(ctx, { source: p.kind, points: pulled.points }, { issuedAt });
          outcomes.push({
            provider: p.kind,
            zone,
            loaded: r.loaded,
            ...(r.skipped > 0 ? { skipped: r.skipped } : {}),
            issued_at: issuedAt.toISOString(),
            ...(from.getTime() - issuedAt.getTime() > FORECAST_MAX_AGE_MS ? { stale: true as const } : {}),
          });
        } catch (err) {
          outcomes.push({ provider: p.kind, zone, loaded: 0, error: SvcError.from(err).message });
        }
      }
    }
    return { outcomes };
  }

  /**
   * Starts the periodic pull (`intervalMs` null: off, the default): once now, then every interval. A pull still
   * running when the next is due is not overlapped (that tick is skipped). Results and failures go to `onResult`.
   */
  start(intervalMs: number | null, onResult: (r: { outcomes: PullOutcome[] } | Error) => void): void {
    if (intervalMs === null || this.#config.length === 0 || this.#timer !== undefined) return;
    const run = () => {
      if (this.#periodicRunning || this.#stop.signal.aborted) return;
      this.#periodicRunning = true;
      const ctx = { principal: makePrincipal(SYSTEM_ACTOR, ['admin']), traceId: newTraceId() };
      void this.pull(ctx)
        .then(onResult, (err: unknown) => onResult(err as Error))
        .finally(() => (this.#periodicRunning = false));
    };
    const timer = setInterval(run, intervalMs);
    timer.unref();
    this.#timer = timer;
    run();
  }

  /** Stops the periodic pull, aborts requests in flight and waits for running pulls to settle (shutdown). */
  async stop(): Promise<void> {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
    this.#stop.abort();
    await Promise.allSettled([...this.#inFlight]);
  }
}
