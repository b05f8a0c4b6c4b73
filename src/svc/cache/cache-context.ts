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
  semanticCalibrated: 'ai.semantic_cache.calibrated',
  stored: 'cache.entry.stored',
} as const;

/** What a direct lookup (the `/v1/cache/*` routes) found: `stale` is a semantic candidate rejected as stale. */
export type CacheLookupResult = 'hit' | 'miss' | 'stale';

/**
 * Told about every direct lookup (the composed app counts them in
 * `svc_cache_hits_total`, `svc_cache_misses_total` and
 * `svc_ai_semantic_cache_stale_total`, and logs them). The AI gateway's own
 * lookups are counted by the gateway, so they do not pass through here.
 */
export type CacheLookupObserver = (cache: 'exact' | 'semantic', result: CacheLookupResult, tenant: string) => void;
