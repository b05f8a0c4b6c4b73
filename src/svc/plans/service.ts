/**
 * Planning as a service: every planning call — by id, inline, or from the
 * CLI — persists the plan and appends `plan.created` (work unit id, policy
 * bundle id, trace id, the plan). Denied transforms append
 * `policy.transform.denied` before the error reaches the caller.
 */
import { requirePermission } from '../auth/principal.ts';
import type { TenantGuard } from '../auth/tenant-guard.ts';
import type { RequestContext } from '../context.ts';
import { SvcError } from '../errors.ts';
import type { LedgerAppender } from '../ledger/appender.ts';
import type { PolicyEvaluator } from '../policy/types.ts';
import type { RolloutService } from '../rollout/rollout-service.ts';
import type { PlanRepository } from '../store/repositories/plans.ts';
import type { WorkUnitRepository } from '../store/repositories/work-units.ts';
import { validate } from '../validation.ts';
import type { WorkUnitService } from '../work-units/service.ts';
import type { WorkUnitRecord } from '../work-units/work-unit.ts';
import { type Plan, PlanOptions } from './plan.ts';
import { buildPlan } from './planner.ts';

interface Deps {
  plans: PlanRepository;
  workUnitRepo: WorkUnitRepository;
  workUnits: WorkUnitService;
  ledger: LedgerAppender;
  tenants: TenantGuard;
  policy: () => PolicyEvaluator;
  rollout: RolloutService;
  defaultMode: 'observe' | 'enforce';
  /** Observes planning latency (metrics). */
  onPlanned?: (seconds: number) => void;
}

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
    const wu = await this.#deps.workUnits.create(ctx, workUnitBody);
    return this.#plan(ctx, wu, options);
  }

  async #plan(ctx: RequestContext, wu: WorkUnitRecord, options: PlanOptions): Promise<Plan> {
    const started = performance.now();
    const policy = this.#deps.policy();
    const rollout = this.#deps.rollout.decide({
      tenant: wu.tenant,
      work_unit_kind: wu.kind,
      contract: wu.requested_contract,
      work_unit_id: wu.id,
      requested_mode: options.mode ?? this.#deps.defaultMode,
      ...(options.namespace !== undefined ? { namespace: options.namespace } : {}),
    });
    const outcome = buildPlan(policy, {
      principal: ctx.principal,
      traceId: ctx.traceId,
      workUnit: wu,
      rollout,
      namespace: options.namespace,
      transforms: options.transforms,
    });
    if (outcome.events.length > 0) await this.#deps.ledger.appendMany(outcome.events);
    if (!outcome.ok) {
      await this.#deps.workUnitRepo.update(wu.id, { state: 'failed' });
      throw outcome.error;
    }
    const plan = outcome.plan;
    await this.#deps.plans.insert(plan, ctx.principal.actor);
    await this.#deps.workUnitRepo.update(wu.id, { state: wu.state === 'executed' ? 'executed' : 'planned', last_plan_id: plan.plan_id });
    await this.#deps.ledger.append({
      type: 'plan.created',
      tenant: wu.tenant,
      actor: ctx.principal.actor,
      work_unit_id: wu.id,
      policy_bundle_id: plan.policy_bundle_id,
      trace_id: ctx.traceId,
      payload: { work_unit_id: wu.id, policy_bundle_id: plan.policy_bundle_id, trace_id: ctx.traceId, plan },
    });
    this.#deps.onPlanned?.((performance.now() - started) / 1000);
    return plan;
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
function splitInline(body: unknown): { options: PlanOptions; workUnitBody: Record<string, unknown> } {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) throw new SvcError('invalid_work_unit', 'the request body must be a JSON object');
  const { mode, namespace, transforms, ...rest } = body as Record<string, unknown>;
  const options = validate(PlanOptions, Object.fromEntries(Object.entries({ mode, namespace, transforms }).filter(([, v]) => v !== undefined)));
  return { options, workUnitBody: rest };
}
