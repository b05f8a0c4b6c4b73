/**
 * The nine counters of the spec, kept in one prom-client registry (the single
 * source of truth): `/v1/metrics` sums them into JSON, `/v1/metrics/prometheus`
 * renders the same registry as text. Label sets only carry closed vocabularies
 * (error codes, provider ids from the config), never request content.
 */
import { Counter, Gauge, Registry } from 'prom-client';
import Type from 'typebox';
import type { Static } from 'typebox';

export const MetricsResponseSchema = Type.Object(
  {
    requests_total: Type.Integer({ minimum: 0, description: 'Every HTTP request received.' }),
    attribution_requests_total: Type.Integer({ minimum: 0, description: 'Authenticated attribution requests that reached the attribution domain.' }),
    blocked_requests_total: Type.Integer({ minimum: 0, description: 'Fail-closed outcomes: `blocked` responses plus protected requests rejected with 4xx/5xx.' }),
    audit_errors_total: Type.Integer({ minimum: 0, description: 'Verifier errors returned in `audit_errors`, plus audit-log append failures.' }),
    provider_requests_total: Type.Integer({ minimum: 0, description: 'Calls made to upstream providers.' }),
    provider_route_count: Type.Integer({ minimum: 0, description: 'Provider routes in the allowlist.' }),
    rate_limited_requests_total: Type.Integer({ minimum: 0, description: 'Requests rejected with 429.' }),
    ready_status: Type.Union([Type.Literal(0), Type.Literal(1)], { description: '1 when every readiness check passes.' }),
    uptime_seconds: Type.Number({ minimum: 0 }),
    audit_head: Type.Object(
      {
        seq: Type.Integer({ minimum: 0, description: 'Sequence number of the last audit entry (entries in the whole chain).' }),
        hash: Type.String({ pattern: '^[0-9a-f]{64}$', description: 'entry_hash of that entry (64 zeros for an empty log).' }),
        segment: Type.Integer({ minimum: 1, description: 'Number of the live segment.' }),
      },
      { additionalProperties: false, description: 'Not a counter: the checkpoint for `attr-service-audit-verify --expect-head <seq>:<hash>`.' },
    ),
  },
  { additionalProperties: false },
);
export type MetricsResponse = Static<typeof MetricsResponseSchema>;

export class ServiceMetrics {
  readonly registry = new Registry();
  readonly #started = performance.now();
  readonly #requests: Counter;
  readonly #attributions: Counter<'route' | 'status'>;
  readonly #blocked: Counter<'reason'>;
  readonly #auditErrors: Counter<'source'>;
  readonly #providerRequests: Counter<'provider_id' | 'outcome'>;
  readonly #rateLimited: Counter;
  readonly #providerRoutes: Gauge;
  readonly #ready: Gauge;
  readonly #uptime: Gauge;

  readonly #auditHead: () => MetricsResponse['audit_head'];

  constructor(options: { providerRouteCount: number; auditHead: () => MetricsResponse['audit_head'] }) {
    this.#auditHead = options.auditHead;
    const registers = [this.registry];
    this.#requests = new Counter({ name: 'attr_requests_total', help: 'Every HTTP request received.', registers });
    this.#attributions = new Counter({ name: 'attr_attribution_requests_total', help: 'Attribution requests that reached the attribution domain.', labelNames: ['route', 'status'], registers });
    this.#blocked = new Counter({ name: 'attr_blocked_requests_total', help: 'Fail-closed outcomes by reason (error code or grounding_blocked).', labelNames: ['reason'], registers });
    this.#auditErrors = new Counter({ name: 'attr_audit_errors_total', help: 'Verifier audit errors returned, plus audit-log append failures.', labelNames: ['source'], registers });
    this.#providerRequests = new Counter({ name: 'attr_provider_requests_total', help: 'Upstream provider calls by provider and outcome.', labelNames: ['provider_id', 'outcome'], registers });
    this.#rateLimited = new Counter({ name: 'attr_rate_limited_requests_total', help: 'Requests rejected by the per-client rate limiter.', registers });
    this.#providerRoutes = new Gauge({ name: 'attr_provider_route_count', help: 'Provider routes in the allowlist.', registers });
    this.#ready = new Gauge({ name: 'attr_ready_status', help: '1 when every readiness check passes, else 0.', registers });
    const started = this.#started;
    this.#uptime = new Gauge({
      name: 'attr_uptime_seconds',
      help: 'Seconds since the process started serving.',
      registers,
      collect() {
        this.set((performance.now() - started) / 1000);
      },
    });
    this.#providerRoutes.set(options.providerRouteCount);
    this.#ready.set(0);
  }

  request(): void {
    this.#requests.inc();
  }
  attribution(route: 'attribute' | 'provider_attribute', status: 'ready' | 'blocked' | 'refused'): void {
    this.#attributions.inc({ route, status });
  }
  blocked(reason: string): void {
    this.#blocked.inc({ reason });
  }
  auditErrors(count: number, source: 'response' | 'audit_log'): void {
    if (count > 0) this.#auditErrors.inc({ source }, count);
  }
  providerRequest(providerId: string, outcome: string): void {
    this.#providerRequests.inc({ provider_id: providerId, outcome });
  }
  rateLimited(): void {
    this.#rateLimited.inc();
  }
  setReady(ready: boolean): void {
    this.#ready.set(ready ? 1 : 0);
  }

  /** The spec's nine JSON counters, summed over labels, plus the audit head (not a counter). */
  async snapshot(): Promise<MetricsResponse> {
    const total = async (metric: Counter<string> | Gauge<string>): Promise<number> => (await metric.get()).values.reduce((s, v) => s + v.value, 0);
    return {
      requests_total: await total(this.#requests),
      attribution_requests_total: await total(this.#attributions),
      blocked_requests_total: await total(this.#blocked),
      audit_errors_total: await total(this.#auditErrors),
      provider_requests_total: await total(this.#providerRequests),
      provider_route_count: await total(this.#providerRoutes),
      rate_limited_requests_total: await total(this.#rateLimited),
      ready_status: (await total(this.#ready)) === 1 ? 1 : 0,
      uptime_seconds: Math.round(((performance.now() - this.#started) / 1000) * 1000) / 1000,
      audit_head: this.#auditHead(),
    };
  }

  /** Prometheus text exposition of the same registry. */
  async prometheusText(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
