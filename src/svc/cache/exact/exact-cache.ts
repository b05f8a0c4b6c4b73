/**
 * The exact cache service. Stores only values that pass the server-run
 * verifier; re-runs it on every hit (a tampered or corrupted row is a miss,
 * not an answer). Every key lives in its tenant's namespace: the same key
 * stored by two tenants is two entries, and a lookup only ever sees the
 * caller's tenant — no answer, error or timing path says whether another
 * tenant holds a key (issue 10, defect 11). Naming another tenant is still
 * refused with `cache_permission_denied` and recorded (cache-access.ts).
 */
import { SvcError } from '../../errors.ts';
import { authorizeCacheTenant } from '../cache-access.ts';
import { CACHE_EVENTS, type CacheLedgerSink, type CacheLookupObserver, type CacheRequestContext } from '../cache-context.ts';
import { type CacheStoreRequest, DEFAULT_TTL_SECONDS, type ExactLookupRequest } from '../cache-schemas.ts';
import { runVerifier } from '../verifiers/run-verifier.ts';
import type { VerificationSpec } from '../verifiers/verification-spec.ts';
import type { VerifierOutcome } from '../verifiers/verifier.ts';
import type { ExactCacheEntry, ExactCacheStore } from './exact-cache-store.ts';
import { inSpan, tenantHash } from '../../observability/tracing.ts';

export interface ExactCacheOptions {
  store: ExactCacheStore;
  ledger: CacheLedgerSink;
  /** Milliseconds since the epoch; injectable for tests. */
  now?: () => number;
  /** Called when the store returned another tenant's entry (defence in depth: refused, counted for the critical alert). */
  onCrossTenantHit?: () => void;
  onLookup?: CacheLookupObserver;
}

export type ExactLookupResult =
  | { hit: true; entry: ExactCacheEntry; verifier: string; age_seconds: number }
  | { hit: false; reason: 'absent' | 'expired' | 'verifier_failed' | 'cross_tenant' };

export type ExactStoreResult =
  | { stored: true; key: string; tenant: string; verifier: string; expires_at: string }
  | { stored: false; verifier: VerifierOutcome };

export class ExactCache {
  readonly #store: ExactCacheStore;
  readonly #ledger: CacheLedgerSink;
  readonly #now: () => number;
  readonly #onCrossTenantHit: () => void;
  readonly #onLookup: CacheLookupObserver;

  constructor(options: ExactCacheOptions) {
    this.#onLookup = options.onLookup ?? (() => {});
    this.#store = options.store;
    this.#ledger = options.ledger;
    this.#now = options.now ?? Date.now;
    this.#onCrossTenantHit = options.onCrossTenantHit ?? (() => {});
  }

  /** `POST /v1/cache/store`: verify, then store. A failing value is refused with `verifier_failed`. */
  async store(ctx: CacheRequestContext, request: CacheStoreRequest): Promise<Extract<ExactStoreResult, { stored: true }>> {
    const tenant = await authorizeCacheTenant(ctx, this.#ledger, 'cache:write', request.tenant);
    const result = await this.storeVerified(ctx, tenant, request.key, request.value, request.verification, request.ttl_seconds ?? DEFAULT_TTL_SECONDS, 'client');
    if (!result.stored) {
      throw new SvcError('verifier_failed', `the value failed ${result.verifier.verifier}: ${result.verifier.reason ?? 'rejected'}`, {
        details: { verifier: result.verifier.verifier },
      });
    }
    return result;
  }

  /** `POST /v1/cache/exact/lookup`. */
  async lookup(ctx: CacheRequestContext, request: ExactLookupRequest): Promise<ExactLookupResult> {
    const tenant = await authorizeCacheTenant(ctx, this.#ledger, 'cache:read', request.tenant);
    return inSpan('svc.cache.lookup', { tenant_hash: tenantHash(tenant), action: 'exact_cache_lookup' }, async (span) => {
      const result = await this.lookupForTenant(ctx, tenant, request.key);
      const found = result.hit ? 'hit' : 'miss';
      span?.setAttribute('cache_result', found);
      this.#onLookup('exact', found, tenant);
      return result;
    });
  }

  /** Lookup in the namespace of a tenant the caller already resolved (the AI gateway). */
  async lookupForTenant(_ctx: CacheRequestContext, tenant: string, key: string): Promise<ExactLookupResult> {
    const entry = await this.#store.get(tenant, key);
    if (!entry) return { hit: false, reason: 'absent' };
    if (entry.tenant !== tenant) {
      // The store is keyed by tenant, so this cannot happen unless storage is broken: never serve it.
      this.#onCrossTenantHit();
      return { hit: false, reason: 'cross_tenant' };
    }
    const now = this.#now();
    if (Date.parse(entry.expires_at) <= now) {
      await this.#store.delete(tenant, key);
      return { hit: false, reason: 'expired' };
    }
    const check = runVerifier(entry.verification, entry.value);
    if (!check.passed) return { hit: false, reason: 'verifier_failed' };
    return { hit: true, entry, verifier: check.verifier, age_seconds: Math.max(0, Math.floor((now - Date.parse(entry.created_at)) / 1000)) };
  }

  /**
   * Runs the verifier and stores the value only when it passes. Used for
   * gateway responses (successful ones only: callers never pass errors) and
   * by `store` above.
   */
  async storeVerified(
    ctx: CacheRequestContext,
    tenant: string,
    key: string,
    value: unknown,
    verification: VerificationSpec,
    ttlSeconds: number,
    origin: ExactCacheEntry['origin'],
  ): Promise<ExactStoreResult> {
    const check = runVerifier(verification, value);
    if (!check.passed) return { stored: false, verifier: check };
    const now = this.#now();
    const entry: ExactCacheEntry = {
      key,
      tenant,
      value,
      verification,
      verifier: check.verifier,
      origin,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + ttlSeconds * 1000).toISOString(),
    };
    await this.#store.put(entry);
    if (origin === 'client') {
      await this.#ledger.append({ type: CACHE_EVENTS.stored, tenant, actor: ctx.principal.actor, trace_id: ctx.traceId, payload: { key, verifier: check.verifier, expires_at: entry.expires_at } });
    }
    return { stored: true, key, tenant, verifier: check.verifier, expires_at: entry.expires_at };
  }
}
