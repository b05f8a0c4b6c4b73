/**
 * What the cache services need from their caller: who asks (for tenant
 * binding and permissions), the trace id, and where audit events go. The
 * ledger sink is a port so the cache domain does not depend on how the
 * ledger is stored; the composition root passes `app.ledger`.
 */
import type { RequestContext } from '../context.ts';

export type CacheRequestContext = Pick<RequestContext, 'principal' | 'traceId'>;

/** The caches write through the same audit port as every other domain. */
export type { AuditEvent as CacheLedgerEvent, AuditSink as CacheLedgerSink } from '../ledger/sink.ts';

/** Ledger event types written by the caches. */
export const CACHE_EVENTS = {
  crossTenantDenied: 'cache.cross_tenant.denied',
  semanticAccepted: 'ai.semantic_cache.accepted',
  semanticCleared: 'ai.semantic_cache.cleared',
  stored: 'cache.entry.stored',
} as const;
