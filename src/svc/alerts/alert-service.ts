/**
 * In-process alert evaluation (the second form of alert-definitions.ts):
 * snapshots of svc's registry every `sampleIntervalMs`, each alert's
 * expression evaluated over its window, Prometheus-style `for` (pending,
 * then firing). A critical alert that starts firing appends `alert.fired`
 * to the ledger and writes an alert log line; when it stops, `alert.resolved`.
 * `GET /v1/admin/alerts` evaluates on demand and returns every alert's state.
 */
import type { Registry } from 'prom-client';
import { requirePermission } from '../auth/principal.ts';
import type { RequestContext } from '../context.ts';
import type { LedgerEventInput } from '../ledger/event.ts';
import type { OpLog } from '../logs/oplog.ts';
import { ALERTS, type AlertDefinition } from './alert-definitions.ts';
import { toPromQL, windowSeconds } from './alert-expr.ts';
import { evaluateExpr } from './evaluate-expr.ts';
import { type MetricSnapshot, takeSnapshot } from './metric-snapshot.ts';

export type AlertState = 'inactive' | 'pending' | 'firing';

export interface AlertStatus {
  name: string;
  severity: AlertDefinition['severity'];
  spec: string;
  summary: string;
  state: AlertState;
  value: number | null;
  window: string;
  for: string;
  since: string | null;
  expr: string;
  quiet_until?: string;
}

export interface AlertReport {
  evaluated_at: string;
  firing: number;
  alerts: AlertStatus[];
}

export interface AlertServiceDeps {
  registry: Registry;
  /** Where `alert.fired` / `alert.resolved` go: the ledger (system events, no tenant). */
  ledger: { append(input: LedgerEventInput): Promise<unknown> };
  log?: Pick<OpLog, 'alert'>;
  definitions?: readonly AlertDefinition[];
  now?: () => number;
  sampleIntervalMs?: number;
}

function windowOf(d: AlertDefinition): string {
  return d.expr.window;
}

export class AlertService {
  readonly #d: AlertServiceDeps;
  readonly #defs: readonly AlertDefinition[];
  readonly #now: () => number;
  readonly #snapshots: MetricSnapshot[] = [];
  readonly #pendingSince = new Map<string, number>();
  readonly #firing = new Set<string>();
  #timer: NodeJS.Timeout | undefined;
  #chain: Promise<unknown> = Promise.resolve();
  readonly #maxWindowMs: number;

  constructor(deps: AlertServiceDeps) {
    this.#d = deps;
    this.#defs = deps.definitions ?? ALERTS;
    this.#now = deps.now ?? Date.now;
    this.#maxWindowMs = Math.max(...this.#defs.map((d) => windowSeconds(windowOf(d)))) * 1000;
  }

  /** Takes the baseline snapshot and starts periodic evaluation (the timer never keeps the process alive). */
  async start(): Promise<void> {
    this.#snapshots.push(await takeSnapshot(this.#d.registry, this.#now()));
    const every = this.#d.sampleIntervalMs ?? 15_000;
    if (every > 0) {
      this.#timer = setInterval(() => void this.evaluate().catch(() => undefined), every);
      this.#timer.unref();
    }
  }

  close(): void {
    clearInterval(this.#timer);
  }

  /** Serialised: one evaluation at a time, so state transitions (and their ledger events) happen once. */
  evaluate(): Promise<AlertReport> {
    const run = this.#chain.then(() => this.#evaluateOnce());
    this.#chain = run.catch(() => undefined);
    return run;
  }

  async report(ctx: RequestContext): Promise<AlertReport> {
    requirePermission(ctx.principal, 'metrics:read');
    return this.evaluate();
  }

  #baseFor(windowMs: number, now: number): MetricSnapshot {
    let base = this.#snapshots[0]!;
    for (const s of this.#snapshots) if (s.at <= now - windowMs) base = s;
    return base;
  }

  async #evaluateOnce(): Promise<AlertReport> {
    const now = this.#now();
    const snap = await takeSnapshot(this.#d.registry, now);
    this.#snapshots.push(snap);
    // Keep one snapshot at least a max window old, drop anything older.
    while (this.#snapshots.length > 2 && this.#snapshots[1]!.at <= now - this.#maxWindowMs) this.#snapshots.shift();
    const alerts: AlertStatus[] = [];
    for (const d of this.#defs) {
      const r = evaluateExpr(d.expr, snap, this.#baseFor(windowSeconds(windowOf(d)) * 1000, now));
      let state: AlertState = 'inactive';
      if (r.holds) {
        const since = this.#pendingSince.get(d.name) ?? now;
        this.#pendingSince.set(d.name, since);
        state = now - since >= windowSeconds(d.for) * 1000 ? 'firing' : 'pending';
      } else {
        this.#pendingSince.delete(d.name);
      }
      await this.#transition(d, state, r.value);
      alerts.push({
        name: d.name,
        severity: d.severity,
        spec: d.spec,
        summary: d.summary,
        state,
        value: r.value,
        window: windowOf(d),
        for: d.for,
        since: state === 'inactive' ? null : new Date(this.#pendingSince.get(d.name)!).toISOString(),
        expr: toPromQL(d.expr),
        ...(d.quiet_until ? { quiet_until: d.quiet_until } : {}),
      });
    }
    return { evaluated_at: new Date(now).toISOString(), firing: alerts.filter((a) => a.state === 'firing').length, alerts };
  }

  async #transition(d: AlertDefinition, state: AlertState, value: number | null): Promise<void> {
    const was = this.#firing.has(d.name);
    if (state === 'firing' && !was) {
      this.#firing.add(d.name);
      if (d.severity === 'critical') {
        this.#d.log?.alert({ event_type: 'alert.fired', alert: d.name }, `critical alert ${d.name} fired`);
        await this.#d.ledger.append({ type: 'alert.fired', tenant: null, actor: 'svc', payload: { alert: d.name, severity: d.severity, spec: d.spec, value, window: windowOf(d), expr: toPromQL(d.expr) } });
      }
    } else if (state !== 'firing' && was) {
      this.#firing.delete(d.name);
      if (d.severity === 'critical') await this.#d.ledger.append({ type: 'alert.resolved', tenant: null, actor: 'svc', payload: { alert: d.name, severity: d.severity } });
    }
  }
}
