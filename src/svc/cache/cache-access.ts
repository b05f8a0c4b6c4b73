/**
 * Tenant binding and permissions for cache calls. Failures here are cache
 * permission failures, so they surface as `cache_permission_denied` (spec:
 * Authentication, cache isolation) and every cross-tenant attempt is written
 * to the ledger: a critical alert watches for it.
 */
import { resolveTenant } from '../auth/principal.ts';
import type { Permission } from '../auth/roles.ts';
import { SvcError } from '../errors.ts';
import { sha256Hex } from '../../core/hashing.ts';
import { CACHE_EVENTS, type CacheLedgerSink, type CacheRequestContext } from './cache-context.ts';

/** Hash of a tenant name: safe to put in spans and ledger payloads of other tenants' events. */
export function tenantHash(tenant: string): string {
  return sha256Hex(`tenant:${tenant}`).slice(0, 16);
}

/**
 * The tenant the caller acts on, after checking its permission. A tenant-bound
 * caller naming another tenant is refused and the attempt is recorded.
 */
export async function authorizeCacheTenant(
  ctx: CacheRequestContext,
  ledger: CacheLedgerSink,
  permission: Extract<Permission, 'cache:read' | 'cache:write'>,
  requestedTenant: string | undefined,
): Promise<string> {
  if (!ctx.principal.permissions.has(permission)) {
    throw new SvcError('cache_permission_denied', `the principal '${ctx.principal.actor}' lacks the permission ${permission}`);
  }
  return bindCacheTenant(ctx, ledger, requestedTenant, permission);
}

/** Tenant binding alone (see `resolveTenant`), with cross-tenant attempts refused and recorded. */
export async function bindCacheTenant(ctx: CacheRequestContext, ledger: CacheLedgerSink, requestedTenant: string | undefined, operation: string): Promise<string> {
  try {
    return resolveTenant(ctx.principal, requestedTenant);
  } catch (err) {
    if (!(err instanceof SvcError) || err.code !== 'tenant_forbidden') throw err;
    const own = ctx.principal.tenant ?? 'default';
    await recordCrossTenantAttempt(ctx, ledger, own, { requested_tenant_hash: tenantHash(requestedTenant ?? ''), operation });
    throw new SvcError('cache_permission_denied', "this credential cannot use another tenant's cache", { cause: err });
  }
}

/** Writes the audit event for a refused cross-tenant cache access. */
export async function recordCrossTenantAttempt(
  ctx: CacheRequestContext,
  ledger: CacheLedgerSink,
  tenant: string,
  payload: Record<string, unknown>,
): Promise<void> {
  await ledger.append({ type: CACHE_EVENTS.crossTenantDenied, tenant, actor: ctx.principal.actor, trace_id: ctx.traceId, payload });
}
