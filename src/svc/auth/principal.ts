/**
 * The authenticated caller. Built once per request from server configuration
 * (never from token text or body fields) and passed into every domain call,
 * which is where permissions and tenant binding are enforced.
 */
import { SvcError } from '../errors.ts';
import { type Permission, type Role, permissionsOf } from './roles.ts';

export interface Principal {
  /** Stable actor name recorded in the ledger. */
  readonly actor: string;
  /** When set, the principal may act on this tenant only. */
  readonly tenant: string | undefined;
  readonly roles: readonly Role[];
  readonly permissions: ReadonlySet<Permission>;
}

export function makePrincipal(actor: string, roles: readonly Role[], tenant?: string): Principal {
  return Object.freeze({ actor, tenant, roles: Object.freeze([...roles]), permissions: permissionsOf(roles) });
}

/** Throws `forbidden` unless the principal holds the permission. */
export function requirePermission(principal: Principal, permission: Permission): void {
  if (!principal.permissions.has(permission)) {
    throw new SvcError('forbidden', `the principal '${principal.actor}' lacks the permission ${permission}`);
  }
}

/** Tenant used when neither the request nor the principal names one. */
export const DEFAULT_TENANT = 'default';

/**
 * The tenant a request acts on. A tenant-bound principal always acts on its
 * own tenant; naming any other tenant (in a query, body or nested option) is
 * refused with `tenant_forbidden`. Callers record the refusal in the ledger.
 */
export function resolveTenant(principal: Principal, requested: string | undefined | null): string {
  if (principal.tenant !== undefined) {
    if (requested != null && requested !== principal.tenant) {
      throw new SvcError('tenant_forbidden', `this credential is bound to its own tenant and cannot act on tenant '${requested}'`, {
        details: { requested_tenant: requested },
      });
    }
    return principal.tenant;
  }
  return requested ?? DEFAULT_TENANT;
}
