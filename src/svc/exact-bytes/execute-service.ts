/**
 * Execution of byte_object work units (`POST /v1/work-units/{id}/execute`,
 * `POST /v1/work-units/execute`, `svc execute`, `svc work-unit execute`).
 *
 * Execute by id uses the work unit's latest plan when there is one and the
 * request names no plan options; otherwise it plans first (which persists the
 * plan and writes `plan.created`). Inline execute creates the work unit and
 * plans it, then executes. Either way the policy decision comes from the
 * plan, made by the app's PolicyEvaluator.
 *
 * Execution input (body of execute by id, all optional): `mode`,
 * `namespace`, `transforms` — the plan options (docs/objects.md).
 */
import { requirePermission } from '../auth/principal.ts';
import type { RequestContext } from '../context.ts';
import { SvcError } from '../errors.ts';
import type { Plan } from '../plans/plan.ts';
import type { PlanService } from '../plans/service.ts';
import type { WorkUnitService } from '../work-units/service.ts';
import type { WorkUnitRecord } from '../work-units/work-unit.ts';
import type { ExactExecutor, ExecuteResult } from './exact-executor.ts';

export interface ExecuteServiceDeps {
  workUnits: WorkUnitService;
  plans: PlanService;
  executor: ExactExecutor;
}

/** One in-memory payload as a stream (the executor always reads streams). */
async function* bytesAsStream(bytes: Uint8Array): AsyncGenerator<Uint8Array> {
  yield bytes;
}

function hasPlanOptions(options: unknown): boolean {
  return typeof options === 'object' && options !== null && Object.keys(options).length > 0;
}

export class ExecuteService {
  readonly #deps: ExecuteServiceDeps;
  constructor(deps: ExecuteServiceDeps) {
    this.#deps = deps;
  }

  async executeById(ctx: RequestContext, workUnitId: string, options: unknown = {}): Promise<ExecuteResult> {
    requirePermission(ctx.principal, 'work_units:write');
    const wu = await this.#deps.workUnits.get(ctx, workUnitId);
    this.#assertExecutable(wu);
    const plan = wu.last_plan_id && !hasPlanOptions(options) ? await this.#deps.plans.get(ctx, wu.last_plan_id) : await this.#deps.plans.planById(ctx, wu.id, options ?? {});
    return this.#run(ctx, wu, plan);
  }

  async executeInline(ctx: RequestContext, body: unknown): Promise<ExecuteResult> {
    requirePermission(ctx.principal, 'work_units:write');
    if (typeof body === 'object' && body !== null && (body as { kind?: unknown }).kind !== 'byte_object') {
      throw new SvcError('invalid_work_unit', 'inline execute runs byte_object work units; AI requests go through the AI gateway');
    }
    const plan = await this.#deps.plans.planInline(ctx, body);
    const wu = await this.#deps.workUnits.get(ctx, plan.work_unit_id);
    return this.#run(ctx, wu, plan);
  }

  #assertExecutable(wu: WorkUnitRecord): void {
    if (wu.kind !== 'byte_object') {
      throw new SvcError('invalid_work_unit', `work unit ${wu.id} is a ${wu.kind}; execute runs byte_object work units (AI requests go through the AI gateway)`, { workUnitId: wu.id });
    }
    if (wu.state === 'executed') throw new SvcError('conflict', `work unit ${wu.id} was already executed`, { workUnitId: wu.id, details: { manifest_id: wu.manifest_id } });
  }

  async #run(ctx: RequestContext, wu: WorkUnitRecord, plan: Plan): Promise<ExecuteResult> {
    if (wu.payload.kind !== 'binary') {
      throw new SvcError('invalid_work_unit', `work unit ${wu.id} carries no bytes to execute`, { workUnitId: wu.id });
    }
    const { result } = await this.#deps.executor.execute(ctx, wu, plan, bytesAsStream(wu.payload.bytes));
    return result;
  }
}
