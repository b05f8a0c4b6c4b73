/**
 * Planning as a service: every planning call — by id, inline, or from the
 * CLI — persists the plan and appends `plan.created` (work unit id, policy
 * bundle id, trace id, the plan). Denied transforms append
 * `policy.transform.denied` before the error reaches the caller.
 */
import { newId } from '../../core/ids.ts';
import { requirePermission } from '../auth/principal.ts';
import { assertIdCursor } from '../continuation-token.ts';
import type { TenantGuard } from '../auth/tenant-guard.ts';
import type { RequestContext } from '../context.ts';
import { SvcError } from '../errors.ts';
import type { LedgerAppender } from '../ledger/appender.ts';
import type { PolicyEvaluator } from '../policy/types.ts';
import type { RolloutService } from '../rollout/rollout-service.ts';
import type { LedgerEventInput } from '../ledger/event.ts';
import type { Db } from '../store/db.ts';
import { PlanRepository } from '../store/repositories/plans.ts';
import { WorkUnitRepository } from '../store/repositories/work-units.ts';
import { validate } from '../validation.ts';
import type { NewWorkUnit, WorkUnitService } from '../work-units/service.ts';
import type { WorkUnitRecord } from '../work-units/work-unit.ts';
import { type Plan, PlanOptions } from './plan.ts';
import { buildPlan } from './planner.ts';
import { inSpan, namespaceOf, tenantHash } from '../observability/tracing.ts';

interface Deps {
  plans: PlanRepository;
  workUnits: WorkUnitService;
  ledger: LedgerAppender;
  tenants: TenantGuard;
  policy: () => PolicyEvaluator;
  rollout: RolloutService;
  defaultMode: 'observe' | 'enforce';
  /** Observes planning latency (metrics). */
  onPlanned?: (seconds: number) => void;
  /** Signed plugins: a requested `plugin:<id>` transform must be runnable, and its manifest says whether it is semantic. */
  plugins?: { describe(ctx: RequestContext, id: string): Promise<{ kind: string; semantic: boolean }> };
}

/** A plan made for a work unit that is not stored yet (PlanService.planDeferred). */
export interface DeferredPlan {
  plan: Plan;
  /** Stores the work unit, the plan and their events; `actual` replaces the work unit's declared payload size and digest. */
  commit(actual?: { size: number; sha256: string }): Promise<void>;
}

/** A prepared work unit with the size and digest of the bytes that arrived. */
function withPayloadFacts(unit: NewWorkUnit, actual: { size: number; sha256: string }): NewWorkUnit {
  const record = { ...unit.record, payload_size: actual.size, payload_sha256: actual.sha256 };
  const payload = { ...(unit.event.payload as Record<string, unknown>), payload_size: actual.size, payload_sha256: actual.sha256 };
  return { record, event: { ...unit.event, payload } };
}

/** Requested transforms that name a plugin: `plugin:<id>`. */
export const PLUGIN_TRANSFORM_PREFIX = 'plugin:';

export class PlanService {
  readonly #deps: Deps;
  constructor(deps: Deps) {
    this.#deps = deps;
  }

  /** Plans an existing work unit. */
  async planById(ctx: RequestContext, workUnitId: string, options: unknown = {}): Promise<Plan> {
    requirePermission(ctx.principal, 'work_units:write');
    const wu = await this.#deps.workUnits.get(ctx, workUnitId);
    return this.#plan(ctx, wu, validate(PlanOptions, options ?? {}));
  }

  /** Creates the work unit from an inline body, then plans it (so the plan is traceable to a work unit id). */
  async planInline(ctx: RequestContext, body: unknown): Promise<Plan> {
    const { options, workUnitBody } = splitInline(body);
    const prepared = await this.#deps.workUnits.prepare(ctx, workUnitBody);
    return this.#plan(ctx, prepared.record, options, prepared);
  }

  /**
   * Plans a work unit that is not stored yet, and stores nothing: `commit`
   * stores the work unit (with the size and digest of the bytes that really
   * arrived), the plan, the work unit's state and the events in one
   * transaction. The raw byte routes commit only once the body matched its
   * declaration, so a body that did not leaves no record (decision 112). A
   * refusal is stored at once, as with planInline: it happens before any
   * byte is read.
   */
  async planDeferred(ctx: RequestContext, prepared: NewWorkUnit, options: unknown = {}): Promise<DeferredPlan> {
    requirePermission(ctx.principal, 'work_units:write');
    return this.#plan(ctx, prepared.record, validate(PlanOptions, options ?? {}), prepared, true);
  }

  /**
   * Plans `wu` and commits everything the plan produced — the new work unit
   * (inline planning), the plan, the work unit's state and the ledger events —
   * in one transaction, shared with concurrent requests by the ledger's group
   * commit; with `defer`, the commit is left to the caller.
   */
  #plan(ctx: RequestContext, wu: WorkUnitRecord, options: PlanOptions, newWorkUnit?: NewWorkUnit): Promise<Plan>;
  #plan(ctx: RequestContext, wu: WorkUnitRecord, options: PlanOptions, newWorkUnit: NewWorkUnit, defer: true): Promise<DeferredPlan>;
  #plan(ctx: RequestContext, wu: WorkUnitRecord, options: PlanOptions, newWorkUnit?: NewWorkUnit, defer = false): Promise<Plan | DeferredPlan> {
    const attributes = { work_unit_id: wu.id, tenant_hash: tenantHash(wu.tenant), namespace: namespaceOf(options.namespace ?? wu.logical_ref), contract: wu.requested_contract };
    return inSpan('svc.plan', attributes, async (span) => {
      const started = performance.now();
      const pending = await this.#planNow(ctx, wu, options, newWorkUnit);
      const plan = pending.plan;
      span?.setAttributes({ policy_bundle_id: plan.policy_bundle_id, mode: plan.mode, contract: plan.contract, action: plan.actions.map((a) => a.type).join(',') });
      if (defer) return pending;
      await pending.commit();
      this.#deps.onPlanned?.((performance.now() - started) / 1000);
      return plan;
    });
  }

  async #planNow(ctx: RequestContext, wu: WorkUnitRecord, options: PlanOptions, newWorkUnit?: NewWorkUnit): Promise<DeferredPlan> {
    const policy = this.#deps.policy();
    // svc.classify: which rollout stage, mode, contract and reducer tier this work unit falls under.
    const rollout = inSpan('svc.classify', { work_unit_id: wu.id, contract: wu.requested_contract }, (span) => {
      const decided = this.#deps.rollout.decide({
        tenant: wu.tenant,
        work_unit_kind: wu.kind,
        contract: wu.requested_contract,
        work_unit_id: wu.id,
        requested_mode: options.mode ?? this.#deps.defaultMode,
        ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
      });
      span?.setAttribute('mode', decided.mode);
      return decided;
    });
    const transformClasses = await this.#pluginClasses(ctx, options.transforms ?? []);
    const outcome = buildPlan(policy, {
      principal: ctx.principal,
      traceId: ctx.traceId,
      workUnit: wu,
      rollout,
      namespace: options.namespace,
      transforms: options.transforms,
      transformClasses,
    });
    const events: LedgerEventInput[] = [...(newWorkUnit ? [newWorkUnit.event] : []), ...outcome.events];
    const writeNew = async (tx: Db, unit: NewWorkUnit | undefined) => {
      if (unit) await this.#deps.workUnits.write(tx, unit);
    };
    if (!outcome.ok) {
      await this.#deps.ledger.commit({
        write: async (tx) => {
          await writeNew(tx, newWorkUnit);
          await new WorkUnitRepository(tx).update(wu.id, { state: 'failed' });
        },
        events,
      });
      if (newWorkUnit) this.#deps.workUnits.created(newWorkUnit);
      throw outcome.error;
    }
    const plan = outcome.plan;
    // The plan is stored once: its row points at this event, whose payload carries it (docs/decisions/172).
    const planEvent: LedgerEventInput & { id: string } = {
      id: newId('evt'),
      type: 'plan.created',
      tenant: wu.tenant,
      actor: ctx.principal.actor,
      work_unit_id: wu.id,
      policy_bundle_id: plan.policy_bundle_id,
      trace_id: ctx.traceId,
      payload: { work_unit_id: wu.id, policy_bundle_id: plan.policy_bundle_id, trace_id: ctx.traceId, plan },
    };
    const commit = async (actual?: { size: number; sha256: string }): Promise<void> => {
      // A streamed unit is recorded with what arrived (equal to the declaration, which may have lacked the digest).
      const unit = newWorkUnit && actual ? withPayloadFacts(newWorkUnit, actual) : newWorkUnit;
      await this.#deps.ledger.commit({
        write: async (tx) => {
          await writeNew(tx, unit);
          await new PlanRepository(tx).insert(plan, ctx.principal.actor, planEvent.id);
          await new WorkUnitRepository(tx).update(wu.id, { state: wu.state === 'executed' ? 'executed' : 'planned', last_plan_id: plan.plan_id });
        },
        events: [...(unit ? [unit.event] : []), ...outcome.events, planEvent],
      });
      if (unit) this.#deps.workUnits.created(unit);
    };
    return { plan, commit };
  }

  /**
   * Before anything is recorded: a plugin transform that is not installed,
   * enabled and signed fails the request with `plugin_unavailable`; one that
   * is gets the class its signed manifest declares (a semantic plugin is then
   * refused under `exact_bytes` like any semantic transform).
   */
  async #pluginClasses(ctx: RequestContext, transforms: readonly string[]): Promise<Map<string, 'exact' | 'semantic'>> {
    const out = new Map<string, 'exact' | 'semantic'>();
    for (const t of transforms) {
      if (!t.startsWith(PLUGIN_TRANSFORM_PREFIX)) continue;
      const id = t.slice(PLUGIN_TRANSFORM_PREFIX.length);
      if (!this.#deps.plugins) throw new SvcError('plugin_unavailable', `plugin ${id} is not installed`, { retryable: false, details: { plugin: id, reason: 'not_installed' } });
      const d = await this.#deps.plugins.describe(ctx, id);
      if (d.kind === 'adapter') throw new SvcError('invalid_request', `plugin ${id} is an adapter; transforms name transform or verifier plugins`);
      out.set(t, d.semantic ? 'semantic' : 'exact');
    }
    return out;
  }

  async get(ctx: RequestContext, planId: string): Promise<Plan> {
    requirePermission(ctx.principal, 'work_units:read');
    const plan = await this.#deps.plans.get(planId);
    if (!plan || (ctx.principal.tenant !== undefined && plan.tenant !== ctx.principal.tenant)) {
      throw new SvcError('not_found', `plan ${planId} not found`);
    }
    return plan;
  }

  async list(ctx: RequestContext, q: { tenant?: string | undefined; work_unit_id?: string | undefined; after?: string | undefined; limit?: number | undefined }): Promise<{ plans: Plan[]; next_cursor: string | null }> {
    requirePermission(ctx.principal, 'work_units:read');
    assertIdCursor('after', q.after, 'pl');
    const tenant = await this.#deps.tenants.filter(ctx, q.tenant, 'plans.list.tenant');
    const limit = Math.min(Math.max(q.limit ?? 100, 1), 1000);
    const plans = await this.#deps.plans.list({ tenant, workUnitId: q.work_unit_id, after: q.after, limit });
    return { plans, next_cursor: plans.length === limit ? plans[plans.length - 1]!.plan_id : null };
  }
}

/**
 * An inline body is a work unit create body, optionally with plan options
 * `mode`, `namespace`, `transforms` alongside (they are not stored on the work unit).
 */
export function splitInline(body: unknown): { options: PlanOptions; workUnitBody: Record<string, unknown> } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new SvcError('invalid_work_unit', 'the request body must be a JSON object');
  const { mode, namespace, transforms, ...rest } = body as Record<string, unknown>;
  const options = validate(PlanOptions, Object.fromEntries(Object.entries({ mode, namespace, transforms }).filter(([, v]) => v !== undefined)));
  return { options, workUnitBody: rest };
}
