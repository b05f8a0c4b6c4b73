/**
 * The energy-aware scheduler's domain: create (plan), read, list, cancel,
 * complete, plan preview, forecast loading (with re-plan), and the runner
 * tick. Every state transition appends a `scheduler.job.*` ledger event.
 * REST (and later gRPC/CLI) are thin adapters over this class.
 */
import { newId } from '../../core/ids.ts';
import { requirePermission, resolveTenant } from '../auth/principal.ts';
import { SvcError } from '../errors.ts';
import type { AuditSink, DomainContext } from '../policy/audit-event.ts';
import { SYSTEM_ACTOR } from '../policy/audit-event.ts';
import { denialEvent } from '../policy/enforce-decision.ts';
import type { PolicyDecision, PolicyEvaluator, PolicyInput } from '../policy/types.ts';
import type { SchedulerJobRepository, StoredForecastPoint } from '../store/repositories/scheduler-jobs.ts';
import { validate } from '../validation.ts';
import { inSpan } from '../observability/tracing.ts';
import { EXACT_BYTES_CONTRACT } from '../policy/evaluate.ts';
import type { ShiftBounds } from './scheduler-config.ts';
import { EMBEDDED_SOURCE, embeddedForecast, isKnownZone } from './embedded-forecast.ts';
import { CompleteJobRequest, CreateJobRequest, type ExecutedUnit, type JobKind, JobListQuery, type JobResult, type JobState, LoadForecastRequest, type PlanReason, type SchedulerJob } from './job-record.ts';
import { forecastDecision, type IntensitySegment, plan } from './planner.ts';
import type { PlanFields } from '../store/repositories/scheduler-jobs.ts';

/** Loaded forecasts older than this are stale: jobs then run at their earliest start (reason `forecast_stale`). */
export const FORECAST_MAX_AGE_MS = 24 * 3_600_000;
const LEASE_MS = 60_000;
/** How long after its deadline an external job may still report before it fails with outcome `no_report`. */
export const DEFAULT_REPORT_GRACE_MS = 60 * 60_000;

export interface TickResult {
  /** Jobs this pass started (their first start). */
  started: SchedulerJob[];
  missed: SchedulerJob[];
  /** `work_units` jobs taken over from a process that died, resuming at their first unit not yet executed. */
  resumed: SchedulerJob[];
  /** Running jobs failed because nobody will finish them (outcome `no_report` or `interrupted`). */
  expired: SchedulerJob[];
}
/** Forecast points that ended longer ago than this are deleted when a forecast loads: plans never look back. */
const FORECAST_RETAIN_PAST_MS = 24 * 3_600_000;
/** The policy action asked before a job is shifted (docs/scheduler.md, Policy bounds; decision 089). */
export const SHIFT_ACTION = 'scheduler.shift';
/** The `work_unit_kind` policy sees for a scheduler job (the job's own kind is `attributes.job_kind`). */
export const SHIFT_POLICY_KIND = 'scheduler_job';

/** What planning asks policy and the configured bounds about, besides the job's window. */
export interface PlanSubject {
  tenant: string;
  kind: JobKind;
  contract: string;
  mode: 'observe' | 'enforce';
  zone: string;
  priority: number;
  /** The submitter; policy sees it without roles, so the answer depends on the job alone (decision 089). */
  actor: string;
  work_unit_id: string | null;
}

/** A work unit a `work_units` job names, as submission sees it. */
export interface JobUnitInfo {
  tenant: string;
  requested_contract: string;
}

export interface SchedulerServiceOptions {
  repository: SchedulerJobRepository;
  audit: AuditSink;
  /** True when the rollback switch disables shifting (every job runs at its earliest start). */
  shiftingDisabled: () => boolean;
  /**
   * How svc runs `work_units` jobs (composed in app.ts over the work-unit and execute services): `check` at
   * submission (the unit exists and is the caller's: throws not_found otherwise), `execute` when the job runs, on the
   * job's tenant. Absent: `work_units` jobs are refused.
   */
  workUnits?: {
    check(ctx: DomainContext, workUnitId: string): Promise<JobUnitInfo>;
    execute(job: SchedulerJob, workUnitId: string): Promise<ExecutedUnit>;
  };
  /**
   * Records the operation work unit a submission runs as when the request names none (design rule 1): kind
   * `scheduler_job_submit`, state executed, the job id in its metadata. Absent: such jobs carry no work unit id.
   */
  recordSubmission?: (ctx: DomainContext, workUnitId: string, fields: { tenant: string; kind: 'scheduler_job_submit'; logical_ref: string; metadata: Record<string, string> }) => Promise<void>;
  /** True when SVC_SCHEDULER_WEBHOOK_SECRET is set: jobs may name a webhook_url. */
  webhooksEnabled?: boolean;
  /** Configured bounds on shifting per tenant and kind (config `scheduler`); default: bounded by the deadline only. */
  shiftBounds?: (tenant: string, kind: JobKind) => ShiftBounds;
  /** The policy bundle in force, asked `scheduler.shift` before a job is shifted; absent: no policy question. */
  policy?: () => PolicyEvaluator;
  /** How long an external job may report after its deadline (default 60 min; config `scheduler.report_grace_minutes`). */
  reportGraceMs?: number;
  /** Claim lease (default 60 s); a `work_units` job keeps renewing it while it runs. */
  leaseMs?: number;
  onTransition?: (job: SchedulerJob, to: JobState) => void;
  onPlanned?: (seconds: number) => void;
  now?: () => Date;
  /** Process identity for leases. */
  owner?: string;
}

export interface JobPlan extends PlanFields {
  baseline_start: string;
  /** Savings are estimates: the forecast is a forecast (or the embedded estimate). */
  estimate: true;
}

/** A plan and, when policy was asked about the shift, its question and answer. */
interface Planned {
  plan: JobPlan;
  shiftPolicy?: { input: PolicyInput; decision: PolicyDecision };
}

/** A validated request, the job it describes and its plan (nothing stored). */
export interface Preview extends Planned {
  tenant: string;
  request: CreateJobRequest;
  subject: PlanSubject;
  energyKwh: number;
}

/**
 * The `scheduler.shift` question. The principal is the submitter without roles and the attributes are facts of the
 * job, so asking again at a re-plan gets the same answer under the same bundle.
 */
function shiftPolicyInput(s: PlanSubject, earliest: Date, deadline: Date, durationMs: number): PolicyInput {
  return {
    principal: { actor: s.actor, roles: [], tenant: s.tenant },
    tenant: s.tenant,
    work_unit_kind: SHIFT_POLICY_KIND,
    ...(s.work_unit_id ? { work_unit_id: s.work_unit_id } : {}),
    contract: s.contract,
    mode: s.mode,
    action: SHIFT_ACTION,
    action_class: 'operation',
    attributes: {
      job_kind: s.kind,
      zone: s.zone,
      priority: s.priority,
      duration_seconds: durationMs / 1000,
      slack_minutes: Math.max(0, Math.floor((deadline.getTime() - durationMs - earliest.getTime()) / 60_000)),
    },
  };
}

/**
 * What a decision means for shifting. Only a policy that matches can deny it (the bundle's `default_effect` does not:
 * moving a job inside its own window changes no bytes and no answer); a failed evaluation denies (fail closed: the
 * earliest start is always safe). `requires_approval` denies too — no approval is presented when a job is planned;
 * `observe_only` computes the shift and runs at the earliest start.
 */
function shiftVerdict(d: PolicyDecision): 'shift' | 'deny' | 'observe' {
  if (!d.allow) return d.default_applied === true ? 'shift' : 'deny';
  if (d.obligations.includes('requires_approval')) return 'deny';
  if (d.obligations.includes('observe_only')) return 'observe';
  return 'shift';
}

/** The plan subject of a stored job (re-plans). */
function subjectOf(job: SchedulerJob): PlanSubject {
  return { tenant: job.tenant, kind: job.kind, contract: job.contract, mode: job.mode, zone: job.zone, priority: job.priority, actor: job.actor, work_unit_id: job.work_unit_id };
}

function fail(message: string, details?: Record<string, unknown>): never {
  throw new SvcError('invalid_request', message, details ? { details } : {});
}

/** A re-plan that changes nothing a caller acts on or reads as an estimate (the forecast's age aside). */
function samePlan(job: SchedulerJob, p: PlanFields): boolean {
  return (
    job.planned_start === p.planned_start &&
    job.run_at === p.run_at &&
    job.plan_reason === p.plan_reason &&
    job.forecast_source === p.forecast_source &&
    job.baseline_gco2 === p.baseline_gco2 &&
    job.planned_gco2 === p.planned_gco2
  );
}

/** The planner integrates a zone's points as one timeline: within one load they must not overlap. */
function assertNoOverlap(points: ReadonlyArray<{ zone: string; start: string; end: string }>): void {
  const order = points.map((p, i) => ({ p, i })).sort((a, b) => (a.p.zone === b.p.zone ? (a.p.start < b.p.start ? -1 : 1) : a.p.zone < b.p.zone ? -1 : 1));
  for (let k = 1; k < order.length; k++) {
    const a = order[k - 1]!;
    const b = order[k]!;
    if (a.p.zone === b.p.zone && b.p.start < a.p.end) {
      fail(`points[${b.i}] overlaps points[${a.i}] in zone ${b.p.zone}: a forecast's points must not overlap`, { index: b.i });
    }
  }
}

function instant(value: string | undefined, field: string, fallback: Date): Date {
  if (value === undefined) return fallback;
  const t = Date.parse(value);
  if (!Number.isFinite(t)) fail(`${field} is not a valid date-time`, { field });
  return new Date(t);
}

export class SchedulerService {
  readonly #repo: SchedulerJobRepository;
  readonly #audit: AuditSink;
  readonly #shiftingDisabled: () => boolean;
  readonly #shiftBounds: (tenant: string, kind: JobKind) => ShiftBounds;
  readonly #policy: (() => PolicyEvaluator) | undefined;
  readonly #webhooksEnabled: boolean;
  readonly #workUnits: SchedulerServiceOptions['workUnits'];
  readonly #recordSubmission: SchedulerServiceOptions['recordSubmission'];
  /** Runs of `work_units` jobs in this process (shutdown waits for them). */
  readonly #running = new Set<Promise<void>>();
  readonly #now: () => Date;
  readonly #owner: string;
  readonly #reportGraceMs: number;
  readonly #leaseMs: number;
  readonly #onTransition: (job: SchedulerJob, to: JobState) => void;
  readonly #onPlanned: (seconds: number) => void;

  constructor(o: SchedulerServiceOptions) {
    this.#repo = o.repository;
    this.#audit = o.audit;
    this.#shiftingDisabled = o.shiftingDisabled;
    this.#shiftBounds = o.shiftBounds ?? (() => ({ shift: true, maxDelayMs: null }));
    this.#policy = o.policy;
    this.#webhooksEnabled = o.webhooksEnabled ?? false;
    this.#workUnits = o.workUnits;
    this.#recordSubmission = o.recordSubmission;
    this.#now = o.now ?? (() => new Date());
    this.#reportGraceMs = o.reportGraceMs ?? DEFAULT_REPORT_GRACE_MS;
    this.#leaseMs = o.leaseMs ?? LEASE_MS;
    this.#owner = o.owner ?? `svc-${process.pid}-${newId('job').slice(-8)}`;
    this.#onTransition = o.onTransition ?? (() => undefined);
    this.#onPlanned = o.onPlanned ?? (() => undefined);
  }

  /** Validates a request and computes its plan; stores nothing. */
  async preview(ctx: DomainContext, body: unknown): Promise<Preview> {
    requirePermission(ctx.principal, 'scheduler:write');
    const request = validate(CreateJobRequest, body);
    const tenant = resolveTenant(ctx.principal, request.tenant);
    const now = this.#now();
    const earliest = instant(request.earliest_start, 'earliest_start', now);
    const deadline = instant(request.deadline, 'deadline', now);
    const durationMs = request.duration_seconds * 1000;
    if (deadline.getTime() <= earliest.getTime()) fail('deadline must be after earliest_start', { field: 'deadline' });
    if (earliest.getTime() + durationMs > deadline.getTime()) fail('duration_seconds does not fit between earliest_start and deadline', { field: 'duration_seconds' });
    if (deadline.getTime() < now.getTime() + durationMs) fail('the deadline cannot be met: it is less than duration_seconds from now', { field: 'deadline' });
    if (request.energy_kwh !== undefined && request.average_power_w !== undefined) fail('give energy_kwh or average_power_w, not both');
    const kind = request.kind ?? 'external';
    if (kind === 'work_units' && request.work_unit_ids === undefined) fail('kind work_units needs work_unit_ids', { field: 'work_unit_ids' });
    if (kind === 'external' && request.work_unit_ids !== undefined) fail('work_unit_ids is only for kind work_units', { field: 'work_unit_ids' });
    if (kind === 'work_units' && this.#workUnits === undefined) fail('this server cannot run work_units jobs', { field: 'kind' });
    if (request.webhook_url !== undefined && !this.#webhooksEnabled) fail('webhook_url needs a signing secret: set SVC_SCHEDULER_WEBHOOK_SECRET on the server', { field: 'webhook_url' });
    if (!isKnownZone(request.zone) && !(await this.#repo.hasForecast(request.zone))) {
      fail(`unknown zone '${request.zone}': no embedded estimate and no loaded forecast`, { field: 'zone' });
    }
    // A named work unit (the one the job belongs to, or those it runs) must exist and be the job's tenant's; another
    // tenant's answers not_found, as everywhere.
    if (request.work_unit_id !== undefined && this.#workUnits !== undefined) {
      const unit = await this.#workUnits.check(ctx, request.work_unit_id);
      if (unit.tenant !== tenant) throw new SvcError('not_found', `work unit ${request.work_unit_id} not found`, { workUnitId: request.work_unit_id });
    }
    const unitContracts = new Set<string>();
    for (const id of request.work_unit_ids ?? []) {
      const unit = await this.#workUnits!.check(ctx, id);
      if (unit.tenant !== tenant) throw new SvcError('not_found', `work unit ${id} not found`, { workUnitId: id });
      unitContracts.add(unit.requested_contract);
    }
    const contract = request.contract ?? (unitContracts.size === 1 ? [...unitContracts][0]! : EXACT_BYTES_CONTRACT);
    const energyKwh = request.energy_kwh ?? ((request.average_power_w ?? 0) * request.duration_seconds) / 3_600_000;
    const subject: PlanSubject = {
      tenant,
      kind,
      contract,
      mode: request.mode ?? 'enforce',
      zone: request.zone,
      priority: request.priority ?? 5,
      actor: ctx.principal.actor,
      work_unit_id: request.work_unit_id ?? null,
    };
    // A job whose earliest start has passed starts no earlier than now.
    const from = new Date(Math.max(earliest.getTime(), now.getTime()));
    const planned = await this.#plan(subject, from, deadline, durationMs, energyKwh, now);
    return { tenant, request, subject, plan: planned.plan, shiftPolicy: planned.shiftPolicy, energyKwh };
  }

  /** Planning is the spec's `svc.plan` span, `action: scheduler.plan` (spec attribute names only; no zone or tenant). */
  #plan(subject: PlanSubject, earliest: Date, deadline: Date, durationMs: number, energyKwh: number, now: Date): Promise<Planned> {
    return inSpan('svc.plan', { action: 'scheduler.plan', mode: subject.mode, contract: subject.contract }, () => this.#planInSpan(subject, earliest, deadline, durationMs, energyKwh, now));
  }

  async #planInSpan(subject: PlanSubject, earliest: Date, jobDeadline: Date, durationMs: number, energyKwh: number, now: Date): Promise<Planned> {
    const started = performance.now();
    // A configured maximum delay moves the end of the search window in: the start may be at most earliest + max delay.
    const bounds = this.#shiftBounds(subject.tenant, subject.kind);
    const deadline =
      bounds.maxDelayMs === null ? jobDeadline : new Date(Math.min(jobDeadline.getTime(), earliest.getTime() + bounds.maxDelayMs + durationMs));
    const loaded = await this.#repo.forecast(subject.zone, earliest.toISOString(), deadline.toISOString());
    let reason: PlanReason = 'lowest_forecast_emissions';
    let source = EMBEDDED_SOURCE;
    let ageS: number | null = null;
    let points: Array<{ start: string; end: string; gco2_per_kwh: number }>;
    if (loaded.length > 0) {
      const newest = loaded.reduce((a, b) => (a.loaded_at > b.loaded_at ? a : b));
      ageS = Math.max(0, Math.round((now.getTime() - Date.parse(newest.loaded_at)) / 1000));
      source = newest.source;
      points = loaded;
      if (ageS * 1000 > FORECAST_MAX_AGE_MS) reason = 'forecast_stale';
    } else {
      points = embeddedForecast(subject.zone, earliest, deadline);
    }
    const segments: IntensitySegment[] = points.map((p: StoredForecastPoint | { start: string; end: string; gco2_per_kwh: number }) => ({ start: Date.parse(p.start), end: Date.parse(p.end), gco2PerKwh: p.gco2_per_kwh }));
    const out = plan({ earliest: earliest.getTime(), deadline: deadline.getTime(), durationMs, energyKwh, segments });
    let chosen = earliest.getTime();
    let chosenGco2 = out.baselineGco2;
    if (reason === 'lowest_forecast_emissions') {
      // A forecast shorter than the window: the best start it covers; not even the earliest run covered: the earliest.
      const decision = forecastDecision(out, earliest.getTime());
      chosen = decision.start;
      chosenGco2 = decision.gco2;
      reason = decision.reason;
    }
    // Asked only when a shift is in question: the answer never moves a job later, only pins it to its earliest start.
    const shifts = reason === 'lowest_forecast_emissions' || reason === 'forecast_partial';
    let shiftPolicy: Planned['shiftPolicy'];
    if (shifts && bounds.shift && this.#policy !== undefined) {
      const input = shiftPolicyInput(subject, earliest, jobDeadline, durationMs);
      shiftPolicy = { input, decision: this.#policy().evaluate(input) };
    }
    let runAt = chosen;
    const policySays = shiftPolicy === undefined ? 'shift' : shiftVerdict(shiftPolicy.decision);
    if (shifts && (!bounds.shift || policySays === 'deny')) {
      reason = 'shifting_denied_by_policy';
      chosen = earliest.getTime();
      chosenGco2 = out.baselineGco2;
      runAt = chosen;
    } else if (shifts && this.#shiftingDisabled()) {
      reason = 'shifting_disabled';
      runAt = earliest.getTime();
    } else if (shifts && (subject.mode === 'observe' || policySays === 'observe')) {
      reason = 'observe_mode';
      runAt = earliest.getTime();
    }
    // Never past the deadline: the planner's window already ends at deadline − duration; assert it.
    if (runAt + durationMs > deadline.getTime()) throw new SvcError('internal', 'planner chose a start past the latest start');
    this.#onPlanned((performance.now() - started) / 1000);
    return {
      plan: {
        baseline_start: earliest.toISOString(),
        planned_start: new Date(chosen).toISOString(),
        run_at: new Date(runAt).toISOString(),
        baseline_gco2: out.baselineGco2,
        planned_gco2: chosenGco2,
        shift_minutes: Math.round((chosen - earliest.getTime()) / 60_000),
        forecast_source: source,
        forecast_age_s: ageS,
        plan_reason: reason,
        estimate: true,
      },
      ...(shiftPolicy ? { shiftPolicy } : {}),
    };
  }

  /**
   * Submits a job: validated and planned as `preview`, stored, `scheduler.job.created` and `.scheduled` appended.
   * Its `work_unit_id` (design rule 1) is the one the request names, else the operation work unit the submission is
   * recorded as; every event of the job names it.
   */
  async create(ctx: DomainContext, body: unknown): Promise<SchedulerJob> {
    const { tenant, request, subject, plan: p, shiftPolicy, energyKwh } = await this.preview(ctx, body);
    const at = this.#now().toISOString();
    const id = newId('job');
    const submissionUnit = subject.work_unit_id === null && this.#recordSubmission !== undefined ? newId('wu') : null;
    const job: SchedulerJob = {
      id,
      tenant,
      kind: subject.kind,
      state: 'scheduled',
      mode: subject.mode,
      contract: subject.contract,
      zone: request.zone,
      priority: subject.priority,
      work_unit_id: subject.work_unit_id ?? submissionUnit,
      earliest_start: p.baseline_start,
      deadline: new Date(Date.parse(request.deadline)).toISOString(),
      duration_s: request.duration_seconds,
      energy_kwh: energyKwh,
      metadata: request.metadata ?? {},
      baseline_start: p.baseline_start,
      planned_start: p.planned_start,
      run_at: p.run_at,
      baseline_gco2: p.baseline_gco2,
      planned_gco2: p.planned_gco2,
      shift_minutes: p.shift_minutes,
      forecast_source: p.forecast_source,
      forecast_age_s: p.forecast_age_s,
      plan_reason: p.plan_reason,
      lease_owner: null,
      lease_expires_at: null,
      started_at: null,
      completed_at: null,
      outcome: null,
      actor: ctx.principal.actor,
      created_at: at,
      updated_at: at,
      webhook_url: request.webhook_url ?? null,
      work_unit_ids: request.work_unit_ids ?? [],
      result: null,
    };
    await this.#repo.insert(job);
    if (submissionUnit !== null) {
      await this.#recordSubmission!(ctx, submissionUnit, {
        tenant,
        kind: 'scheduler_job_submit',
        logical_ref: `svc://scheduler/jobs/${id}`,
        metadata: { job_id: id, job_kind: job.kind, zone: job.zone },
      });
    }
    await this.#event('scheduler.job.created', job, ctx.principal.actor, ctx.traceId);
    // A policy deny of the shift is a policy denial like any other (svc_policy_denials_total counts it), recorded once,
    // when the job is submitted; re-plans keep asking but do not repeat it.
    if (shiftPolicy && shiftVerdict(shiftPolicy.decision) === 'deny') {
      await this.#audit.append(denialEvent(shiftPolicy.decision, shiftPolicy.input, job.mode === 'enforce', ctx.traceId));
    }
    await this.#event('scheduler.job.scheduled', job, ctx.principal.actor, ctx.traceId, {}, shiftPolicy?.decision.bundle.id);
    this.#onTransition(job, 'scheduled');
    return job;
  }

  async get(ctx: DomainContext, id: string): Promise<SchedulerJob> {
    requirePermission(ctx.principal, 'work_units:read');
    const job = await this.#repo.get(id);
    // Other tenants' jobs answer "not found", so ids do not leak across tenants.
    if (!job || (ctx.principal.tenant !== undefined && job.tenant !== ctx.principal.tenant)) throw new SvcError('not_found', `no scheduler job '${id}'`);
    return job;
  }

  async list(ctx: DomainContext, q: { tenant?: string | undefined; state?: JobState | undefined; zone?: string | undefined; after?: string | undefined; limit?: number | undefined }): Promise<{ jobs: SchedulerJob[]; next_after: string | null }> {
    requirePermission(ctx.principal, 'work_units:read');
    const tenant = ctx.principal.tenant !== undefined ? resolveTenant(ctx.principal, q.tenant) : q.tenant;
    const limit = q.limit ?? 100;
    const jobs = await this.#repo.list({ tenant, state: q.state, zone: q.zone, after: q.after, limit });
    return { jobs, next_after: jobs.length === limit ? jobs[jobs.length - 1]!.id : null };
  }

  /** Validates a list query (the REST query string, a gRPC request) and lists. */
  async listFromBody(ctx: DomainContext, body: unknown): Promise<{ jobs: SchedulerJob[]; next_after: string | null }> {
    const q = validate(JobListQuery, body);
    return this.list(ctx, { ...q, state: q.state as JobState | undefined });
  }

  async cancel(ctx: DomainContext, id: string): Promise<SchedulerJob> {
    requirePermission(ctx.principal, 'scheduler:write');
    const job = await this.get(ctx, id);
    const at = this.#now().toISOString();
    const moved = await this.#repo.transition(job.id, ['scheduled', 'running'], 'cancelled', at, { completed_at: at, outcome: 'cancelled' });
    if (!moved) throw new SvcError('conflict', `scheduler job '${id}' is ${job.state} and cannot be cancelled`, { details: { state: job.state } });
    await this.#event('scheduler.job.cancelled', moved, ctx.principal.actor, ctx.traceId);
    this.#onTransition(moved, 'cancelled');
    return moved;
  }

  /** The caller of an external job reports that it finished. Only a started (running) job can complete. */
  async complete(ctx: DomainContext, id: string, body: unknown): Promise<SchedulerJob> {
    requirePermission(ctx.principal, 'scheduler:write');
    const { outcome } = validate(CompleteJobRequest, body);
    const job = await this.get(ctx, id);
    if (job.kind !== 'external') throw new SvcError('conflict', `scheduler job '${id}' is a ${job.kind} job: svc completes it when its work units have run`, { details: { kind: job.kind } });
    const at = this.#now().toISOString();
    const moved = await this.#repo.transition(job.id, ['running'], outcome, at, { completed_at: at, outcome });
    if (!moved) throw new SvcError('conflict', `scheduler job '${id}' is ${job.state}; only a running job can complete`, { details: { state: job.state } });
    await this.#event('scheduler.job.completed', moved, ctx.principal.actor, ctx.traceId);
    this.#onTransition(moved, outcome);
    return moved;
  }

  /**
   * Loads forecast points (operator, forecast file, provider pull) and re-plans scheduled jobs of the zones they
   * cover. Where forecasts overlap, the one issued last wins (docs/scheduler.md, "Forecasts"). `issuedAt`: when the
   * points were produced (a forecast file's mtime, a provider's own issue time), so an old forecast never looks
   * fresh; default now.
   */
  async loadForecast(ctx: DomainContext, body: unknown, options: { issuedAt?: Date } = {}): Promise<{ loaded: number; skipped: number; zones: string[]; replanned: number }> {
    requirePermission(ctx.principal, 'admin:switches');
    const request = validate(LoadForecastRequest, body);
    request.points.forEach((p, i) => {
      const s = Date.parse(p.start);
      const e = Date.parse(p.end);
      if (!Number.isFinite(s) || !Number.isFinite(e) || e <= s) fail(`points[${i}]: end must be a date-time after start`, { index: i });
    });
    const points = request.points.map((p) => ({ ...p, start: new Date(p.start).toISOString(), end: new Date(p.end).toISOString() }));
    assertNoOverlap(points);
    const now = this.#now();
    const stored = await this.#repo.replaceForecast(points, request.source ?? 'operator', (options.issuedAt ?? now).toISOString(), new Date(now.getTime() - FORECAST_RETAIN_PAST_MS).toISOString());
    const zones = [...new Set(points.map((p) => p.zone))].sort();
    let replanned = 0;
    // Only jobs whose remaining window meets the new points can plan differently; a plan that comes out the same
    // is left alone (no write, no event), so an hourly pull with many pending jobs stays cheap.
    for (const zone of stored.stored > 0 ? zones : []) {
      const zonePoints = points.filter((p) => p.zone === zone);
      const spanStart = Math.min(...zonePoints.map((p) => Date.parse(p.start)));
      const spanEnd = Math.max(...zonePoints.map((p) => Date.parse(p.end)));
      for (const job of await this.#repo.scheduledInZone(zone, now.toISOString())) {
        const earliest = new Date(Math.max(Date.parse(job.earliest_start), now.getTime()));
        if (Date.parse(job.deadline) <= spanStart || earliest.getTime() >= spanEnd) continue;
        const { plan: p, shiftPolicy } = await this.#plan(subjectOf(job), earliest, new Date(job.deadline), job.duration_s * 1000, job.energy_kwh, now);
        if (samePlan(job, p)) continue;
        if (await this.#repo.replan(job.id, p, now.toISOString())) {
          replanned++;
          await this.#event('scheduler.job.scheduled', { ...job, ...p }, SYSTEM_ACTOR, ctx.traceId, { replanned: true }, shiftPolicy?.decision.bundle.id);
        }
      }
    }
    await this.#audit.append({ type: 'scheduler.forecast.loaded', tenant: 'default', actor: ctx.principal.actor, payload: { points: stored.stored, skipped: stored.skipped, zones, source: request.source ?? 'operator' } });
    return { loaded: stored.stored, skipped: stored.skipped, zones, replanned };
  }

  /**
   * One runner pass: jobs that can no longer meet their deadline become `missed`; running jobs nobody will finish
   * become `failed` (`no_report`, `interrupted`); due jobs are claimed (exactly one process wins each) and started;
   * `work_units` jobs whose process died are taken over and resumed.
   */
  async tick(limit = 100): Promise<TickResult> {
    const now = this.#now();
    // The rollback switch applies to jobs planned before it was turned on: what would be running without its shift starts now.
    if (this.#shiftingDisabled()) {
      for (const job of await this.#repo.unshiftDue(now)) {
        await this.#event('scheduler.job.scheduled', job, SYSTEM_ACTOR, undefined, { replanned: true });
      }
    }
    const missed = await this.#repo.markMissed(now);
    for (const job of missed) {
      await this.#event('scheduler.job.missed', job, SYSTEM_ACTOR);
      this.#onTransition(job, 'missed');
    }
    const expired = await this.#repo.expireRunning(now, new Date(now.getTime() - this.#reportGraceMs));
    for (const job of expired) {
      await this.#event('scheduler.job.expired', job, SYSTEM_ACTOR, undefined, { outcome: job.outcome });
      this.#onTransition(job, 'failed');
    }
    const at = now.toISOString();
    const started: SchedulerJob[] = [];
    const resumed: SchedulerJob[] = [];
    for (const job of await this.#repo.claimDue(this.#owner, now, this.#leaseMs, limit)) {
      // A claim keeps an earlier started_at: the job was running in a process that died.
      if (job.started_at !== at) {
        resumed.push(job);
        await this.#event('scheduler.job.resumed', job, SYSTEM_ACTOR, undefined, { started_at: job.started_at });
      } else {
        started.push(job);
        await this.#event('scheduler.job.started', job, SYSTEM_ACTOR);
        // An external job's end comes from its caller, not from this process: no lease to keep.
        if (job.kind === 'external') await this.#repo.releaseLease(job.id, this.#owner);
        this.#onTransition(job, 'running');
      }
      if (job.kind === 'work_units') {
        const run = this.#runWorkUnits(job).finally(() => this.#running.delete(run));
        this.#running.add(run);
      }
    }
    return { started, missed, resumed, expired };
  }

  /**
   * Executes a `work_units` job's units in order, in the background (the runner never waits), and completes the
   * job: succeeded when every unit executed, failed at the first that did not (later ones are not run).
   *
   * The lease is kept while it runs (renewed before each unit and every third of the lease), so a process that dies
   * leaves a job another process takes over once the lease expires. Units already executed — by the process that
   * died, or by anyone — are not executed again: their manifest is reported (`previously_executed`). A run that
   * finds it no longer holds the lease (cancelled, or taken over after a stall) stops without completing the job.
   */
  async #runWorkUnits(job: SchedulerJob): Promise<void> {
    let held = true;
    const renew = async () => {
      held = held && (await this.#repo.renewLease(job.id, this.#owner, new Date(this.#now().getTime() + this.#leaseMs)).catch(() => false));
      return held;
    };
    const timer = setInterval(() => void renew(), Math.max(1, Math.floor(this.#leaseMs / 3)));
    timer.unref();
    try {
      const result: JobResult = { executed: [] };
      for (const id of job.work_unit_ids) {
        if (!(await renew())) return;
        try {
          result.executed.push(await this.#workUnits!.execute(job, id));
        } catch (err) {
          const e = SvcError.from(err);
          result.error = { work_unit_id: id, code: e.code, message: e.message };
          break;
        }
      }
      const outcome = result.error === undefined ? 'succeeded' : 'failed';
      const at = this.#now().toISOString();
      const moved = await this.#repo.transition(job.id, ['running'], outcome, at, { completed_at: at, outcome, result, leaseOwner: this.#owner }).catch(() => undefined);
      if (!moved) return; // cancelled meanwhile, taken over, or the store is closing
      await this.#event('scheduler.job.completed', moved, SYSTEM_ACTOR, undefined, { executed: result.executed.length, ...(result.error ? { error_code: result.error.code } : {}) });
      this.#onTransition(moved, outcome);
    } finally {
      clearInterval(timer);
    }
  }

  /** Resolves when the `work_units` runs started by this process have finished (shutdown, tests). */
  async drained(): Promise<void> {
    while (this.#running.size > 0) await Promise.allSettled([...this.#running]);
  }

  async countByState(): Promise<Record<string, number>> {
    return this.#repo.countByState();
  }

  async #event(type: string, job: SchedulerJob, actor: string, traceId?: string, extra: Record<string, unknown> = {}, policyBundleId?: string): Promise<void> {
    await this.#audit.append({
      type,
      tenant: job.tenant,
      actor,
      ...(policyBundleId ? { policy_bundle_id: policyBundleId } : {}),
      ...(job.work_unit_id ? { work_unit_id: job.work_unit_id } : {}),
      ...(traceId ? { trace_id: traceId } : {}),
      payload: {
        job_id: job.id,
        state: job.state,
        run_at: job.run_at,
        baseline_start: job.baseline_start,
        planned_start: job.planned_start,
        shift_minutes: job.shift_minutes,
        plan_reason: job.plan_reason,
        forecast_source: job.forecast_source,
        estimated_baseline_gco2: job.baseline_gco2,
        estimated_planned_gco2: job.planned_gco2,
        ...extra,
      },
    });
  }
}
