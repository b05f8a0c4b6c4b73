/**
 * Pulls forecasts from the configured providers (config `scheduler.forecast_providers`)
 * and loads them through the scheduler's own `loadForecast` (same validation,
 * re-plans scheduled jobs). On demand (POST /v1/scheduler/forecasts/pull,
 * `svc scheduler forecast --pull`) and, when `scheduler.pull_interval_minutes`
 * is set, periodically. One provider or zone failing does not stop the others;
 * each outcome is reported, and a failure leaves earlier points in place (the
 * staleness rule then protects deadlines).
 */
import { makePrincipal, requirePermission } from '../../auth/principal.ts';
import { SvcError } from '../../errors.ts';
import type { DomainContext } from '../../policy/audit-event.ts';
import { SYSTEM_ACTOR } from '../../policy/audit-event.ts';
import { newTraceId } from '../../observability/trace-id.ts';
import type { SchedulerConfig } from '../scheduler-config.ts';
import type { SchedulerService } from '../scheduler-service.ts';
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
  loaded: number;
  error?: string;
}

export class ForecastPullService {
  readonly #scheduler: SchedulerService;
  readonly #config: SchedulerConfig['forecast_providers'];
  readonly #horizonMs: number;
  readonly #env: Readonly<Record<string, string | undefined>>;
  readonly #fetch: typeof fetch;
  readonly #now: () => Date;
  #timer: NodeJS.Timeout | undefined;

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
    const from = this.#now();
    const to = new Date(from.getTime() + this.#horizonMs);
    const outcomes: PullOutcome[] = [];
    for (const p of this.#config) {
      const settings = { kind: p.kind, baseUrl: p.base_url, apiKey: p.api_key_env ? this.#env[p.api_key_env] : undefined, timeoutMs: p.timeout_ms, fetch: this.#fetch };
      for (const zone of p.zones) {
        try {
          const points = await PULLERS[p.kind](settings, { zone, providerZone: p.zone_map?.[zone] ?? zone, from, to });
          if (points.length === 0) throw new SvcError('adapter_unavailable', `forecast provider ${p.kind}: no points for ${zone} in the next ${this.#horizonMs / 3_600_000} h`);
          const r = await this.#scheduler.loadForecast(ctx, { source: p.kind, points });
          outcomes.push({ provider: p.kind, zone, loaded: r.loaded });
        } catch (err) {
          outcomes.push({ provider: p.kind, zone, loaded: 0, error: SvcError.from(err).message });
        }
      }
    }
    return { outcomes };
  }

  /** Starts the periodic pull when configured; failures are logged by the caller's `onResult`. */
  start(intervalMinutes: number | null, onResult: (r: { outcomes: PullOutcome[] } | Error) => void): void {
    if (intervalMinutes === null || this.#config.length === 0) return;
    const ctx = { principal: makePrincipal(SYSTEM_ACTOR, ['admin']), traceId: newTraceId() };
    const run = () => this.pull(ctx).then(onResult, (err: unknown) => onResult(err as Error));
    const timer = setInterval(run, intervalMinutes * 60_000);
    timer.unref();
    this.#timer = timer;
    void run();
  }

  stop(): void {
    if (this.#timer) clearInterval(this.#timer);
    this.#timer = undefined;
  }
}
