/**
 * What the cache services need from their caller: who asks (for tenant
 * binding and permissions), the trace id, and where audit events go. The
 * ledger sink is a port so the cache domain does not depend on how the
 * ledger is stored; the composition root passes `app.ledger`.
 */
import type { Principal } from '../auth/principal.ts';

export interface CacheRequestContext {
  readonly principal: Principal;
  readonly traceId: string;
}

export interface CacheLedgerEvent {
  type: string;
  tenant: string;
  actor: string;
  work_unit_id?: string;
  policy_bundle_id?: string;
  trace_id?: string;
  payload: Record<string, unknown>;
}

export interface CacheLedgerSink {
  append(event: CacheLedgerEvent): Promise<unknown>;
}

/** Ledger event types written by the caches. */
export const CACHE_EVENTS = {
  crossTenantDenied: 'cache.cross_tenant.denied',
  semanticAccepted: 'ai.semantic_cache.accepted',
  semanticCleared: 'ai.semantic_cache.cleared',
  stored: 'cache.entry.stored',
} as const;
