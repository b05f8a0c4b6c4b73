/**
 * Runs a mutating call that is not itself a work unit (object delete, cache
 * store, approvals, switches, policy publish/reload) as an operation work
 * unit, so every call that changes behaviour exposes a traceable work unit
 * id (spec design rule 1; docs/decisions/017):
 *
 * 1. an id is allocated and the call runs in its scope (its ledger events
 *    name the id: operation-scope.ts);
 * 2. on success the work unit (kind = the operation, state `executed`, ids
 *    of what changed in `metadata`) and its `work_unit.created` event are
 *    committed before the answer, which carries `work_unit_id`;
 * 3. on failure nothing is recorded unless the call already wrote ledger
 *    events naming the id: then a `failed` unit is recorded in the caller's
 *    own tenant, so those events resolve, and the error names it.
 */
import { newId } from '../../core/ids.ts';
import { resolveTenant } from '../auth/principal.ts';
import type { RequestContext } from '../context.ts';
import { SvcError } from '../errors.ts';
import type { WorkUnitService } from '../work-units/service.ts';
import { type OperationScope, runAsOperation } from './operation-scope.ts';

/** Work unit kinds of operations (stored and listed like `byte_object` or `prompt_request`). */
export const OPERATION_KINDS = [
  'object_delete',
  'cache_store',
  'semantic_cache_store',
  'semantic_cache_clear',
  'semantic_cache_calibrate',
  'approval_issue',
  'approval_revoke',
  'approval_redeem',
  'switch_change',
  'policy_publish',
  'policy_reload',
  'manifest_import',
  'scheduler_job_submit',
] as const;
export type OperationKind = (typeof OPERATION_KINDS)[number];

/** What the operation changed, for its work unit record (ids only, never payload text). */
export interface OperationRecord {
  tenant: string;
  logical_ref: string;
  metadata: Record<string, string>;
  manifest_id?: string | null;
}

export class OperationUnits {
  readonly #workUnits: WorkUnitService;
  constructor(workUnits: WorkUnitService) {
    this.#workUnits = workUnits;
  }

  async run<T extends object>(ctx: RequestContext, kind: OperationKind, call: () => Promise<T>, describe: (result: T) => OperationRecord): Promise<T & { work_unit_id: string }> {
    const scope: OperationScope = { workUnitId: newId('wu'), stamped: false };
    let result: T;
    try {
      result = await runAsOperation(scope, call);
    } catch (err) {
      if (!scope.stamped) throw err;
      const error = SvcError.from(err);
      await this.#workUnits
        .recordOperation(ctx, scope.workUnitId, { tenant: resolveTenant(ctx.principal, undefined), kind, logical_ref: `svc://operations/${kind}`, metadata: { error_code: error.code } }, 'failed')
        .catch(() => undefined);
      throw error.withContext({ workUnitId: scope.workUnitId });
    }
    const record = describe(result);
    await this.#workUnits.recordOperation(ctx, scope.workUnitId, { ...record, kind });
    return { ...result, work_unit_id: scope.workUnitId };
  }
}
