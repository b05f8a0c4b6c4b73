/**
 * The semantic cache service. A lookup hits only when ALL of these hold
 * (docs/caches.md, docs/semantic-cache.md): same tenant and domain (the
 * partition), the word alignment of the two questions accepts them (no
 * other content word, number, negation, symbol, question word or word order;
 * no reference outside the text), the similarity at or above the operating
 * point's threshold, identical source fingerprints and policy id, the entry
 * young enough for the caller's freshness, and the entry's verifier (plus
 * the caller's, when given) passing now. A candidate rejected only for source,
 * policy or age is counted as stale. Each accepted hit is written to the
 * ledger as `ai.semantic_cache.accepted`.
 *
 * Whether a request may use the semantic cache at all (contract `semantic`
 * and `allow_semantic_cache`) is decided by the caller; this service is the
 * mechanism.
 */
import { newId } from '../../../core/ids.ts';
import { SvcError } from '../../errors.ts';
import { authorizeCacheTenant, bindCacheTenant, tenantHash } from '../cache-access.ts';
import { CACHE_EVENTS, type CacheLedgerSink, type CacheLookupObserver, type CacheRequestContext } from '../cache-context.ts';
import { DEFAULT_TTL_SECONDS, type SemanticCalibrateRequest, type SemanticLookupRequest, type SemanticStoreRequest } from '../cache-schemas.ts';
import { runVerifier } from '../verifiers/run-verifier.ts';
import { createHash } from 'node:crypto';
import { type Embedder, lexicalEmbedder } from './embedder.ts';
import { type JudgedQuery, judgeCandidate, meetsThreshold } from './pair-judge.ts';
import { normaliseQuery } from './query-normaliser.ts';
import { type QueryToken, lookupKeyOf, queryTokens, synonymLookupKeysOf } from './query-tokens.ts';
import type { SemanticCacheEntry, SemanticCacheStore, SemanticCalibration } from './semantic-cache-store.ts';
import { type CurvePoint, calibrateThreshold } from './calibration.ts';
import { inSpan, tenantHash as spanTenantHash } from '../../observability/tracing.ts';

/** Threshold for caller-supplied vectors: without text, the meaning guard cannot run, so be stricter. */
export const CLIENT_EMBEDDING_THRESHOLD = 0.97;

export type SemanticMissReason = 'no_candidate' | 'embedder_unavailable' | 'stale' | 'policy_changed' | 'meaning_differs' | 'verifier_failed';

export type SemanticLookupResult =
  | { hit: true; entry_id: string; value: unknown; similarity: number; verifier: string; age_seconds: number; operating_point: OperatingPoint }
  | { hit: false; reason: SemanticMissReason; stale: boolean; best_similarity: number };

/**
 * The threshold a hit was accepted under: the embedder's default, or the domain's calibration (docs/semantic-cache.md),
 * with the embedder whose similarity it applies to.
 */
export type OperatingPoint =
  | { source: 'default'; embedder: string; threshold: number }
  | { source: 'calibration'; embedder: string; threshold: number; calibration_id: string; max_false_accept: number };

export type SemanticQuery = Omit<SemanticLookupRequest, 'tenant'>;
export type SemanticEntryInput = Omit<SemanticStoreRequest, 'tenant'>;

export interface SemanticCacheOptions {
  store: SemanticCacheStore;
  ledger: CacheLedgerSink;
  embedder?: Embedder;
  now?: () => number;
  /** How many of the partition's newest entries are scored per lookup of a caller-supplied vector (no text). */
  maxCandidates?: number;
  /**
   * How many of the partition's newest entries are scored per text lookup besides those with the query's lookup key
   * (which are all candidates, however old): they catch a typo in a content word, which changes the key.
   */
  recentCandidates?: number;
  /** Called with the number of candidates of another tenant a broken store returned (refused; critical alert). */
  onCrossTenantHit?: (count: number) => void;
  onLookup?: CacheLookupObserver;
}

/** When several candidates miss for different reasons, the most informative reason is reported. */
const MISS_RANK: Record<SemanticMissReason, number> = { no_candidate: 0, embedder_unavailable: 0, meaning_differs: 1, verifier_failed: 2, policy_changed: 3, stale: 4 };

interface PreparedQuery {
  embedder: string;
  threshold: number;
  similarity: Embedder['similarity'];
  normalised: string | null;
  tokens: QueryToken[] | null;
  lookupKey: string | null;
  /** Digests of the keys of the query with one content word replaced by a synonym (lookups only). */
  synonymKeys: string[];
  vector: number[];
}

/** How many entries with the query's lookup key are scored (the newest first). */
const KEY_CANDIDATES = 64;
/** How many synonym variants of the query's key are looked up (decision 187; their entries share KEY_CANDIDATES). */
const SYNONYM_KEYS = 32;

/** Digest of a lookup key: fixed size in the index, and no query words in it. */
function keyDigest(key: string): string {
  return createHash('sha256').update(key).digest('base64url').slice(0, 22);
}

function sortedUnique(values: readonly string[]): string[] {
  return [...new Set(values)].sort();
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

export class SemanticCache {
  readonly #store: SemanticCacheStore;
  readonly #ledger: CacheLedgerSink;
  readonly #embedder: Embedder;
  readonly #now: () => number;
  readonly #maxCandidates: number;
  readonly #recentCandidates: number;
  /** Tokens of stored queries, by normalised text (bounded; an entry's text never changes). */
  readonly #tokens = new Map<string, QueryToken[]>();
  readonly #onCrossTenantHit: (count: number) => void;
  readonly #onLookup: CacheLookupObserver;

  constructor(options: SemanticCacheOptions) {
    this.#onLookup = options.onLookup ?? (() => {});
    this.#store = options.store;
    this.#ledger = options.ledger;
    this.#embedder = options.embedder ?? lexicalEmbedder;
    this.#now = options.now ?? Date.now;
    this.#maxCandidates = options.maxCandidates ?? 2000;
    this.#recentCandidates = options.recentCandidates ?? 200;
    this.#onCrossTenantHit = options.onCrossTenantHit ?? (() => {});
  }

  get embedderId(): string {
    return this.#embedder.id;
  }

  async lookup(ctx: CacheRequestContext, request: SemanticLookupRequest): Promise<SemanticLookupResult> {
    const tenant = await authorizeCacheTenant(ctx, this.#ledger, 'cache:read', request.tenant);
    const { tenant: _ignored, ...query } = request;
    return inSpan('svc.cache.lookup', { tenant_hash: spanTenantHash(tenant), action: 'semantic_cache_lookup' }, async (span) => {
      const result = await this.lookupForTenant(ctx, tenant, query);
      const found = result.hit ? 'hit' : result.stale ? 'stale' : 'miss';
      span?.setAttribute('cache_result', found);
      this.#onLookup('semantic', found, tenant);
      return result;
    });
  }

  async store(ctx: CacheRequestContext, request: SemanticStoreRequest): Promise<{ id: string; verifier: string; expires_at: string }> {
    const tenant = await authorizeCacheTenant(ctx, this.#ledger, 'cache:write', request.tenant);
    const { tenant: _ignored, ...input } = request;
    const stored = await this.storeForTenant(tenant, input);
    if (!stored.stored) throw new SvcError('verifier_failed', `the value failed ${stored.verifier}: ${stored.reason}`, { details: { verifier: stored.verifier } });
    return stored;
  }

  /**
   * Lookup for a tenant the caller has already resolved (the AI gateway).
   * `recordAcceptance: false` is for observe mode: a would-be hit is
   * reported but not served, so no acceptance event is written.
   */
  async lookupForTenant(
    ctx: CacheRequestContext,
    tenant: string,
    query: SemanticQuery,
    options: { workUnitId?: string; recordAcceptance?: boolean } = {},
  ): Promise<SemanticLookupResult> {
    const workUnitId = options.workUnitId;
    let prepared: PreparedQuery;
    try {
      prepared = await this.#prepare(query.query, query.embedding, true);
    } catch (err) {
      // An embeddings upstream that fails makes a miss (the request goes to the model), never a failed request.
      if (SvcError.from(err).code === 'invalid_request') throw err;
      return { hit: false, reason: 'embedder_unavailable', stale: false, best_similarity: 0 };
    }
    // A domain calibrated on the tenant's own labelled pairs uses its measured threshold (text queries only: the guard runs).
    const calibration = prepared.normalised !== null && query.embedding === undefined ? await this.#store.calibration({ tenant, domain: query.domain, embedder: prepared.embedder }) : undefined;
    const operatingPoint: OperatingPoint = calibration
      ? { source: 'calibration', embedder: prepared.embedder, threshold: calibration.threshold, calibration_id: calibration.id, max_false_accept: calibration.max_false_accept }
      : { source: 'default', embedder: prepared.embedder, threshold: prepared.threshold };
    const now = this.#now();
    const fetched = await this.#candidates({ tenant, domain: query.domain, embedder: prepared.embedder }, prepared, new Date(now).toISOString());
    // The store partitions by tenant; another tenant's entry here means storage is broken: never score it.
    const candidates = fetched.filter((e) => e.tenant === tenant);
    if (candidates.length < fetched.length) this.#onCrossTenantHit(fetched.length - candidates.length);
    const asked: JudgedQuery = { tokens: prepared.tokens, vector: prepared.vector };
    let refusedForMeaning = false;
    const scored: Array<{ entry: SemanticCacheEntry; similarity: number }> = [];
    for (const entry of candidates) {
      const judged = judgeCandidate(prepared.similarity, asked, { tokens: this.#tokensOf(entry.normalised_query), vector: entry.embedding }, operatingPoint.threshold);
      if (judged.refused) {
        if (judged.lookedAlike) refusedForMeaning = true;
        continue;
      }
      // Without text on both sides nothing can be refused for meaning, so such vectors need the stricter threshold.
      if (!judged.guarded && judged.similarity < CLIENT_EMBEDDING_THRESHOLD) {
        if (meetsThreshold(judged.similarity, operatingPoint.threshold)) refusedForMeaning = true;
        continue;
      }
      if (meetsThreshold(judged.similarity, operatingPoint.threshold)) scored.push({ entry, similarity: judged.similarity });
    }
    scored.sort((a, b) => b.similarity - a.similarity);
    const best = scored[0]?.similarity ?? 0;
    const fingerprints = sortedUnique(query.source_fingerprints);
    let reason = 'no_candidate' as SemanticMissReason;
    const note = (r: SemanticMissReason): void => {
      reason = MISS_RANK[r] > MISS_RANK[reason] ? r : reason;
    };
    if (refusedForMeaning) note('meaning_differs');
    for (const { entry, similarity } of scored) {
      if (!sameList(entry.source_fingerprints, fingerprints)) {
        note('stale');
        continue;
      }
      if (entry.policy_id !== query.policy_id) {
        note('policy_changed');
        continue;
      }
      const ageSeconds = Math.max(0, Math.floor((now - Date.parse(entry.created_at)) / 1000));
      if (ageSeconds > query.freshness.max_age_seconds) {
        note('stale');
        continue;
      }
      const own = runVerifier(entry.verification, entry.value);
      const extra = query.verification ? runVerifier(query.verification, entry.value) : undefined;
      if (!own.passed || (extra && !extra.passed)) {
        note('verifier_failed');
        continue;
      }
      const verifier = extra ? `${own.verifier}+${extra.verifier}` : own.verifier;
      const payload: Record<string, unknown> = {
        entry_id: entry.id,
        domain: query.domain,
        similarity: Math.round(similarity * 10_000) / 10_000,
        verifier,
        policy_id: entry.policy_id,
        source_fingerprints: entry.source_fingerprints.length,
        age_seconds: ageSeconds,
        embedder: entry.embedder,
        operating_point: operatingPoint,
      };
      const event = { type: CACHE_EVENTS.semanticAccepted, tenant, actor: ctx.principal.actor, trace_id: ctx.traceId, payload } as Parameters<CacheLedgerSink['append']>[0];
      if (workUnitId !== undefined) event.work_unit_id = workUnitId;
      if (options.recordAcceptance !== false) await this.#ledger.append(event);
      return { hit: true, entry_id: entry.id, value: entry.value, similarity, verifier, age_seconds: ageSeconds, operating_point: operatingPoint };
    }
    return { hit: false, reason, stale: reason === 'stale', best_similarity: best };
  }

  /** Verifies, then stores. Values that fail their verifier are never stored. */
  async storeForTenant(
    tenant: string,
    input: SemanticEntryInput,
  ): Promise<{ stored: true; id: string; verifier: string; expires_at: string } | { stored: false; verifier: string; reason: string }> {
    const check = runVerifier(input.verification, input.value);
    if (!check.passed) return { stored: false, verifier: check.verifier, reason: check.reason ?? 'rejected' };
    const prepared = await this.#prepare(input.query, input.embedding);
    const now = this.#now();
    const entry: SemanticCacheEntry = {
      id: newId('ck'),
      tenant,
      domain: input.domain,
      embedder: prepared.embedder,
      normalised_query: prepared.normalised,
      lookup_key: prepared.lookupKey,
      embedding: prepared.vector,
      source_fingerprints: sortedUnique(input.source_fingerprints),
      policy_id: input.policy_id,
      value: input.value,
      verification: input.verification,
      verifier: check.verifier,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + (input.ttl_seconds ?? DEFAULT_TTL_SECONDS) * 1000).toISOString(),
    };
    await this.#store.put(entry);
    return { stored: true, id: entry.id, verifier: check.verifier, expires_at: entry.expires_at };
  }

  /**
   * Rollback hook (spec: "clear the semantic cache"): removes the tenant's
   * entries, or one domain's. Needs `admin:switches`; recorded in the ledger.
   */
  async clear(ctx: CacheRequestContext, request: { tenant?: string; domain?: string }): Promise<{ tenant: string; removed: number }> {
    if (!ctx.principal.permissions.has('admin:switches')) {
      throw new SvcError('cache_permission_denied', `the principal '${ctx.principal.actor}' lacks the permission admin:switches`);
    }
    const tenant = await bindCacheTenant(ctx, this.#ledger, request.tenant, 'semantic_clear');
    const removed = await this.#store.clear(tenant, request.domain);
    await this.#ledger.append({
      type: CACHE_EVENTS.semanticCleared,
      tenant,
      actor: ctx.principal.actor,
      trace_id: ctx.traceId,
      payload: { tenant_hash: tenantHash(tenant), domain: request.domain ?? null, removed },
    });
    return { tenant, removed };
  }

  /**
   * Measures the curve on the tenant's labelled pairs and sets the domain's threshold at the target false
   * acceptance (admin:switches, like clearing: it changes what the cache serves). Recorded in the ledger
   * (`ai.semantic_cache.calibrated`: rates and counts, never pair text).
   */
  async calibrate(ctx: CacheRequestContext, request: SemanticCalibrateRequest): Promise<{ calibration: SemanticCalibration; curve: CurvePoint[] }> {
    if (!ctx.principal.permissions.has('admin:switches')) {
      throw new SvcError('cache_permission_denied', `the principal '${ctx.principal.actor}' lacks the permission admin:switches`);
    }
    const tenant = await bindCacheTenant(ctx, this.#ledger, request.tenant, 'semantic_calibrate');
    const outcome = await calibrateThreshold(request.pairs, request.max_false_accept, this.#embedder);
    const calibration: SemanticCalibration = {
      id: newId('cal'),
      tenant,
      domain: request.domain,
      embedder: this.#embedder.id,
      threshold: outcome.threshold,
      max_false_accept: request.max_false_accept,
      false_accept_rate: outcome.false_accept_rate,
      hit_rate: outcome.hit_rate,
      negatives: outcome.negatives,
      positives: outcome.positives,
      actor: ctx.principal.actor,
      created_at: new Date(this.#now()).toISOString(),
    };
    await this.#store.putCalibration(calibration);
    await this.#ledger.append({
      type: CACHE_EVENTS.semanticCalibrated,
      tenant,
      actor: ctx.principal.actor,
      trace_id: ctx.traceId,
      payload: {
        calibration_id: calibration.id, tenant_hash: tenantHash(tenant), domain: request.domain, embedder: calibration.embedder, threshold: calibration.threshold,
        max_false_accept: calibration.max_false_accept, false_accept_rate: calibration.false_accept_rate, hit_rate: calibration.hit_rate,
        negatives: calibration.negatives, positives: calibration.positives,
      },
    });
    return { calibration, curve: outcome.curve };
  }

  /**
   * The rollback switch `clear_semantic_cache` (src/svc/rollout): removes
   * one tenant's entries, or every tenant's when `tenant` is undefined.
   * The switchboard has already checked `admin:switches` and the tenant
   * binding, and writes the audit event (`admin.switch.changed`).
   */
  clearForRollback(tenant: string | undefined): Promise<number> {
    return tenant === undefined ? this.#store.clearAll() : this.#store.clear(tenant);
  }

  /** `lookup`: also the keys of the query's synonym variants (decision 187), which only a lookup needs. */
  async #prepare(query: string | undefined, embedding: number[] | undefined, lookup = false): Promise<PreparedQuery> {
    const normalised = query === undefined ? null : normaliseQuery(query);
    const tokens = normalised === null || normalised.length === 0 ? null : queryTokens(normalised);
    const lookupKey = tokens === null ? null : keyDigest(lookupKeyOf(tokens));
    const synonymKeys = tokens === null || !lookup ? [] : synonymLookupKeysOf(tokens, SYNONYM_KEYS).map(keyDigest);
    if (embedding !== undefined) {
      return { embedder: `client/${embedding.length}`, threshold: CLIENT_EMBEDDING_THRESHOLD, similarity: 'cosine', normalised, tokens, lookupKey, synonymKeys, vector: embedding };
    }
    if (normalised === null || normalised.length === 0) throw new SvcError('invalid_request', 'a semantic cache request needs a non-empty query or an embedding');
    return {
      embedder: this.#embedder.id,
      threshold: this.#embedder.similarityThreshold,
      similarity: this.#embedder.similarity,
      normalised,
      tokens,
      lookupKey,
      synonymKeys,
      vector: await this.#embedder.embed(normalised),
    };
  }

  /**
   * Text queries: every entry with the query's lookup key (the alignment only accepts the same content words, so no
   * other entry can match except through a synonym or a typo), the entries with the key of the query with one content
   * word replaced by a synonym (decision 187), plus the newest few for typos. Vectors alone: the newest entries.
   */
  async #candidates(partition: { tenant: string; domain: string; embedder: string }, prepared: PreparedQuery, nowIso: string): Promise<SemanticCacheEntry[]> {
    if (prepared.lookupKey === null) return this.#store.candidates(partition, nowIso, this.#maxCandidates);
    const [byKey, bySynonymKey, recent] = await Promise.all([
      this.#store.candidatesByKey(partition, prepared.lookupKey, nowIso, KEY_CANDIDATES),
      // One content word replaced by a synonym changes the key: those entries are found by the variants' keys.
      prepared.synonymKeys.length === 0 ? [] : this.#store.candidatesByKeys(partition, prepared.synonymKeys, nowIso, KEY_CANDIDATES),
      // Caller-supplied vectors may have been stored without text (no key): they keep the wide scan.
      this.#store.candidates(partition, nowIso, partition.embedder.startsWith('client/') ? this.#maxCandidates : this.#recentCandidates),
    ]);
    const seen = new Set<string>();
    const out: SemanticCacheEntry[] = [];
    for (const list of [byKey, bySynonymKey, recent]) {
      for (const e of list) {
        if (seen.has(e.id)) continue;
        seen.add(e.id);
        out.push(e);
      }
    }
    return out;
  }

  #tokensOf(normalised: string | null): QueryToken[] | null {
    if (normalised === null || normalised.length === 0) return null;
    let tokens = this.#tokens.get(normalised);
    if (tokens === undefined) {
      tokens = queryTokens(normalised);
      if (this.#tokens.size >= 50_000) this.#tokens.clear();
      this.#tokens.set(normalised, tokens);
    }
    return tokens;
  }
}
