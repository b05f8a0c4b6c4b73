/**
 * Tenant binding with an audit trail: a tenant-bound principal that names
 * another tenant is refused and the attempt is written to the ledger.
 */
import type { LedgerAppender } from '../ledger/appender.ts';
import type { AuditEvent } from '../ledger/sink.ts';
import type { RequestContext } from '../context.ts';
import { SvcError } from '../errors.ts';
import { resolveTenant } from './principal.ts';

/** The one ledger event type for a refused cross-tenant attempt, on every surface. */
export const TENANT_DENIED_EVENT = 'auth.tenant_denied';

/**
 * The one `auth.tenant_denied` event (REST, gRPC, CLI and the AI gateway
 * alike): the principal's own tenant and actor, the tenant it asked for and
 * where. Only a tenant-bound principal can be refused, so `tenant` is its own.
 */
export function tenantDeniedEvent(ctx: Pick<RequestContext, 'principal' | 'traceId'>, requested: string | undefined | null, where: string): AuditEvent {
  return {
    type: TENANT_DENIED_EVENT,
    tenant: ctx.principal.tenant ?? 'default',
    actor: ctx.principal.actor,
    trace_id: ctx.traceId,
    payload: { requested_tenant: requested ?? null, where },
  };
}

export class TenantGuard {
  readonly #ledger: LedgerAppender;
  constructor(ledger: LedgerAppender) {
    this.#ledger = ledger;
  }

  /** The tenant to act on; throws `tenant_forbidden` (after recording it) on a cross-tenant attempt. */
  async resolve(ctx: RequestContext, requested: string | undefined | null, where: string): Promise<string> {
    try {
      const tenant = resolveTenant(ctx.principal, requested);
      if (ctx.facts) ctx.facts.tenant = tenant;
      return tenant;
    } catch (err) {
      if (err instanceof SvcError && err.code === 'tenant_forbidden') {
        await this.#ledger.append(tenantDeniedEvent(ctx, requested, where));
      }
      throw err;
    }
  }

  /**
   * For list and query operations: a bound principal sees its tenant only;
   * an unbound one sees the tenant it names, or all tenants when it names none.
   */
  async filter(ctx: RequestContext, requested: string | undefined, where: string): Promise<string | undefined> {
    if (ctx.principal.tenant === undefined) {
      if (ctx.facts && requested !== undefined) ctx.facts.tenant = requested;
      return requested;
    }
    return this.resolve(ctx, requested, where);
  }
}
