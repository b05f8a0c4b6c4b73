/**
 * Admission, the first step of a request: the tenant it runs in (a refused
 * tenant is recorded as `auth.tenant_denied`) and the rollout decision it
 * runs under (canary stage, admin switches, SLO guardrail), asked once.
 */
import { resolveTenant } from '../../auth/principal.ts';
import { tenantDeniedEvent } from '../../auth/tenant-guard.ts';
import { SvcError } from '../../errors.ts';
import { EXACT_BYTES_CONTRACT } from '../../policy/evaluate.ts';
import type { RolloutDecision } from '../../rollout/rollout-decision.ts';
import type { SvcExtension } from '../schemas/svc-extension.ts';
import { rolloutRecord } from './ai-rollout.ts';
import type { ApiProfile } from './api-profiles.ts';
import type { GatewayDeps } from './gateway-deps.ts';
import { type AiRequestContext, STORED_WORK_UNIT_KIND } from './ports.ts';
import type { RequestRun } from './request-run.ts';

/** The tenant the request runs in; a tenant the principal may not use is refused and recorded. */
export async function admitTenant(d: GatewayDeps, ctx: AiRequestContext, requested: string | undefined): Promise<string> {
  try {
    return resolveTenant(ctx.principal, requested);
  } catch (err) {
    if (err instanceof SvcError && err.code === 'tenant_forbidden') {
      await d.ledger.append(tenantDeniedEvent(ctx, requested, 'svc.tenant'));
    }
    throw err;
  }
}

/**
 * The rollout decision for this request, asked once: it sets the mode and
 * the contract in force (policy obligations may narrow them further).
 */
export function admitRollout(d: GatewayDeps, profile: ApiProfile, ext: SvcExtension, run: RequestRun): RolloutDecision {
  const decision = d.rollout.decide({
    tenant: run.tenant,
    work_unit_kind: STORED_WORK_UNIT_KIND[profile.kind],
    contract: run.contract,
    work_unit_id: run.work_unit_id,
    requested_mode: run.mode,
    ...(ext.namespace ? { namespace: ext.namespace } : {}),
  });
  // The rollout only ever narrows the contract to exact_bytes.
  if (decision.contract === EXACT_BYTES_CONTRACT) run.contract = EXACT_BYTES_CONTRACT;
  run.mode = decision.mode;
  run.rollout = rolloutRecord(decision);
  return decision;
}
