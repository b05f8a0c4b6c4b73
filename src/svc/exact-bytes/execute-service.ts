/**
 * Execution of work units (`POST /v1/work-units/{id}/execute`,
 * `POST /v1/work-units/execute`, gRPC `Execute`/`ExecuteInline`, `svc
 * execute`, `svc work-unit execute`) — the one domain entry point of every
 * surface, for every kind:
 *
 * - byte_object: the exact executor (below);
 * - prompt_request, completion_request, embedding_request: the AI gateway,
 *   which records plan, compute manifest and events against the stored
 *   unit (src/svc/ai/gateway/stored-unit-executor.ts).
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
import { type AiExecuteResult, isAiWorkUnitKind } from '../ai/gateway/stored-unit-executor.ts';
import { splitInline } from '../plans/service.ts';
import type { TenantGuard } from '../auth/tenant-guard.ts';
import { type DeclaredBody, declarationOf } from './declared-body.ts';
import { parseRawExecuteQuery } from './raw-execute-query.ts';
import type { ExactExecutor, ExecuteResult } from './exact-executor.ts';

/** Executes stored AI work units (the AI gateway's `StoredUnitExecutor`). */
export interface AiUnitExecutor {
  execute(ctx: RequestContext, wu: WorkUnitRecord, options: unknown): Promise<AiExecuteResult>;
}

/** What an AI work unit's execution returns (shape: stored-unit-executor.ts). */
export type { AiExecuteResult };

export interface ExecuteServiceDeps {
  workUnits: WorkUnitService;
  /** Binds the tenant of a raw execute (its query names it; the JSON body's is bound by WorkUnitService). */
  tenants: TenantGuard;
  plans: PlanService;
  executor: ExactExecutor;
  /** Without one, AI work units cannot be executed (`unavailable`). */
  ai?: AiUnitExecutor | undefined;
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

  async executeById(ctx: RequestContext, workUnitId: string, options: unknown = {}): Promise<ExecuteResult | AiExecuteResult> {
    requirePermission(ctx.principal, 'work_units:write');
    const wu = await this.#deps.workUnits.get(ctx, workUnitId);
    this.#assertExecutable(wu);
    if (isAiWorkUnitKind(wu.kind)) return this.#ai(wu).execute(ctx, wu, options ?? {});
    const plan = wu.last_plan_id && !hasPlanOptions(options) ? await this.#deps.plans.get(ctx, wu.last_plan_id) : await this.#deps.plans.planById(ctx, wu.id, options ?? {});
    return this.#run(ctx, wu, plan);
  }

  async executeInline(ctx: RequestContext, body: unknown): Promise<ExecuteResult | AiExecuteResult> {
    requirePermission(ctx.principal, 'work_units:write');
    const kind = typeof body === 'object' && body !== null ? (body as { kind?: unknown }).kind : undefined;
    if (typeof kind === 'string' && isAiWorkUnitKind(kind)) {
      // Stored first (so the request is traceable even if the upstream fails), then run through the gateway.
      const { options, workUnitBody } = splitInline(body);
      const ai = this.#ai();
      const wu = await this.#deps.workUnits.create(ctx, workUnitBody);
      return ai.execute(ctx, wu, options);
    }
    const plan = await this.#deps.plans.planInline(ctx, body);
    const wu = await this.#deps.workUnits.get(ctx, plan.work_unit_id);
    return this.#run(ctx, wu, plan);
  }

  /**
   * `POST /v1/work-units/execute/raw`: an inline byte_object execute whose payload is the raw request body, streamed
   * through the exact executor without buffering or base64 (no inline size limit). The work unit and its plan are
   * stored only once the body has arrived as declared (length, digest), so a mismatch leaves no record (decision 112).
   */
  async executeRaw(ctx: RequestContext, query: unknown, body: DeclaredBody): Promise<ExecuteResult> {
    requirePermission(ctx.principal, 'work_units:write');
    const { unit, options } = parseRawExecuteQuery(query);
    const tenant = await this.#deps.tenants.resolve(ctx, unit.tenant, 'work_unit.tenant');
    const prepared = this.#deps.workUnits.prepareStreamed(ctx, {
      tenant,
      logical_ref: unit.logical_ref,
      requested_contract: unit.requested_contract,
      metadata: unit.metadata,
      // Declared after the bytes (a footer): a placeholder until the commit records what arrived.
      size: body.length ?? 0,
      sha256: body.sha256 ?? null,
    });
    const deferred = await this.#deps.plans.planDeferred(ctx, prepared, options);
    const wu = { ...prepared.record, state: 'planned' as const, last_plan_id: deferred.plan.plan_id };
    const { result } = await this.#deps.executor.execute(ctx, wu, deferred.plan, body.source, {
      declared: declarationOf(body),
      beforeManifest: (ingested) => deferred.commit({ size: ingested.bytes_in, sha256: ingested.sha256 }),
    });
    return result;
  }

  #ai(wu?: WorkUnitRecord): AiUnitExecutor {
    if (!this.#deps.ai) throw new SvcError('unavailable', 'this server has no AI gateway to execute AI work units', wu ? { workUnitId: wu.id } : {});
    return this.#deps.ai;
  }

  #assertExecutable(wu: WorkUnitRecord): void {
    if (wu.kind !== 'byte_object' && !isAiWorkUnitKind(wu.kind)) {
      throw new SvcError('invalid_work_unit', `work unit ${wu.id} is a ${wu.kind}; execute runs byte_object and AI request work units`, { workUnitId: wu.id });
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
