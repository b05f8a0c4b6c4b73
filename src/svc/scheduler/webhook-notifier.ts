/**
 * Signed webhooks for scheduler jobs (docs/scheduler.md, "Webhooks"). When a
 * job with a `webhook_url` starts, and when it reaches a final state, svc
 * POSTs `{id, type, created_at, job}` with
 *
 *   X-SVC-Webhook-Id: <delivery id>          (same on every retry: dedupe on it)
 *   X-SVC-Webhook-Signature: t=<unix s>,v1=<hex HMAC-SHA256(secret, "<t>.<raw body>")>
 *
 * — the scheme Stripe and GitHub receivers already know: verify the HMAC over
 * the exact bytes, reject old timestamps. Deliveries never block the runner:
 * each runs in the background with a timeout and retries with back-off;
 * the outcome is a ledger event (`scheduler.webhook.delivered|failed`, no
 * URL and no secret). The secret comes from the environment only.
 */
import { createHmac, randomUUID } from 'node:crypto';
import type { AuditSink } from '../policy/audit-event.ts';
import { SYSTEM_ACTOR } from '../policy/audit-event.ts';
import type { JobState, SchedulerJob } from './job-record.ts';

export const WEBHOOK_SECRET_ENV = 'SVC_SCHEDULER_WEBHOOK_SECRET';
export const SIGNATURE_HEADER = 'x-svc-webhook-signature';
export const DELIVERY_ID_HEADER = 'x-svc-webhook-id';
const NOTIFIED: ReadonlySet<JobState> = new Set(['running', 'succeeded', 'failed', 'cancelled', 'missed']);

/** The event a notification is about: the ledger event of the same transition. */
function webhookType(job: SchedulerJob, to: JobState): string {
  if (to === 'running') return 'scheduler.job.started';
  if (to === 'missed') return 'scheduler.job.missed';
  if (to === 'cancelled') return 'scheduler.job.cancelled';
  // Failed because nobody reported or finished it (SchedulerService.tick), not by a reported outcome.
  if (to === 'failed' && (job.outcome === 'no_report' || job.outcome === 'interrupted')) return 'scheduler.job.expired';
  return 'scheduler.job.completed';
}

export function signWebhook(secret: string, timestampS: number, body: string): string {
  return `t=${timestampS},v1=${createHmac('sha256', secret).update(`${timestampS}.${body}`).digest('hex')}`;
}

export interface WebhookNotifierOptions {
  secret: string;
  audit: AuditSink;
  /** Delays before each retry (default 1 s, 5 s, 30 s: four attempts). */
  retryDelaysMs?: readonly number[];
  timeoutMs?: number;
  fetch?: typeof fetch;
  log?: { warn(obj: object, msg: string): void };
  now?: () => Date;
}

export class WebhookNotifier {
  readonly #o: Required<Omit<WebhookNotifierOptions, 'log'>> & Pick<WebhookNotifierOptions, 'log'>;
  readonly #inFlight = new Set<Promise<void>>();

  constructor(o: WebhookNotifierOptions) {
    this.#o = { retryDelaysMs: [1_000, 5_000, 30_000], timeoutMs: 5_000, fetch: globalThis.fetch, now: () => new Date(), ...o };
  }

  /** Called on every transition; sends in the background for jobs with a webhook. */
  notify(job: SchedulerJob, to: JobState): void {
    if (job.webhook_url === null || !NOTIFIED.has(to)) return;
    const type = webhookType(job, to);
    const { lease_owner: _o, lease_expires_at: _e, webhook_url: _u, ...visible } = job;
    const body = JSON.stringify({ id: randomUUID(), type, created_at: this.#o.now().toISOString(), job: { ...visible, state: to } });
    const p = this.#deliver(job, job.webhook_url, type, body).finally(() => this.#inFlight.delete(p));
    this.#inFlight.add(p);
  }

  async #deliver(job: SchedulerJob, url: string, type: string, body: string): Promise<void> {
    const deliveryId = (JSON.parse(body) as { id: string }).id;
    let attempts = 0;
    let last = '';
    for (const delay of [0, ...this.#o.retryDelaysMs]) {
      if (delay > 0) await new Promise((r) => setTimeout(r, delay).unref());
      attempts++;
      const t = Math.floor(this.#o.now().getTime() / 1000);
      try {
        const res = await this.#o.fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [DELIVERY_ID_HEADER]: deliveryId, [SIGNATURE_HEADER]: signWebhook(this.#o.secret, t, body), 'user-agent': 'svc-scheduler-webhook/1' },
          body,
          redirect: 'manual',
          signal: AbortSignal.timeout(this.#o.timeoutMs),
        });
        await res.arrayBuffer().catch(() => undefined);
        if (res.status >= 200 && res.status < 300) {
          await this.#record('scheduler.webhook.delivered', job, { event: type, delivery_id: deliveryId, attempts, status: res.status });
          return;
        }
        last = `HTTP ${res.status}`;
      } catch (err) {
        last = (err as Error).name === 'TimeoutError' ? 'timeout' : 'connection failed';
      }
    }
    this.#o.log?.warn({ event_type: 'scheduler.webhook.failed', job_id: job.id, attempts, last }, 'scheduler webhook not delivered');
    await this.#record('scheduler.webhook.failed', job, { event: type, delivery_id: deliveryId, attempts, last });
  }

  async #record(type: string, job: SchedulerJob, payload: Record<string, unknown>): Promise<void> {
    await this.#o.audit.append({ type, tenant: job.tenant, actor: SYSTEM_ACTOR, ...(job.work_unit_id ? { work_unit_id: job.work_unit_id } : {}), payload: { job_id: job.id, ...payload } }).catch(() => undefined);
  }

  /** Resolves when every delivery started so far has finished (shutdown, tests). */
  async drained(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }
}

/** `SVC_SCHEDULER_WEBHOOK_RETRY_MS=1000,5000,30000` overrides the back-off (tests use short delays). */
export function webhookRetries(env: Readonly<Record<string, string | undefined>>): { retryDelaysMs?: number[] } {
  const raw = env.SVC_SCHEDULER_WEBHOOK_RETRY_MS;
  if (raw === undefined || raw.trim() === '') return {};
  const delays = raw.split(',').map((v) => Number(v.trim()));
  if (delays.some((d) => !Number.isInteger(d) || d < 0)) throw new Error('SVC_SCHEDULER_WEBHOOK_RETRY_MS must be comma-separated non-negative integers (ms)');
  return { retryDelaysMs: delays };
}
