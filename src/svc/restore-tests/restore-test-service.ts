/**
 * Rehydration restore tests (spec: Operational behavior; docs/restore-tests.md):
 *
 * - `sampled_exact` — a random sample of active and tombstoned byte manifests,
 *   each fully rehydrated through the verified path users take; a failure
 *   quarantines the manifest and raises the critical alert exactly as a
 *   user's rehydration would (ManifestService owns that path).
 * - `critical_full` — every manifest under the critical prefixes (config
 *   `restore_tests.critical_prefixes`, or the request's `prefixes`).
 * - `table_logical` — every table version the lakehouse adapter recorded is
 *   rehydrated, re-read as a table and compared with its recorded logical
 *   facts (schema, row count, column checksums); `not_applicable` when the
 *   adapter is not installed or no table is recorded, never `passed`.
 * - `cache_source` — exact and semantic cache entries whose verifier no
 *   longer passes on the stored value, or whose `svc-object:` source
 *   fingerprints no longer match the object svc holds, are invalidated.
 * - `manifest_migration` — stored manifests older than the current schema
 *   version are read through the versioned reader and rehydrated.
 *
 * Every run is one `restore_test.completed` ledger event with its counts.
 */
import { randomInt } from 'node:crypto';
import { newId } from '../../core/ids.ts';
import { requirePermission, resolveTenant } from '../auth/principal.ts';
import { runVerifier, verifierNameOf } from '../cache/verifiers/run-verifier.ts';
import type { RequestContext } from '../context.ts';
import { SvcError } from '../errors.ts';
import type { LedgerAppender } from '../ledger/appender.ts';
import { type ByteManifest, MANIFEST_SCHEMA_VERSION } from '../manifests/manifest.ts';
import { ManifestReadError, readManifestDocument } from '../manifests/manifest-reader.ts';
import type { ManifestService } from '../manifests/manifest-service.ts';
import type { CacheEntryRepository } from '../store/repositories/cache-entries.ts';
import type { ManifestRepository } from '../store/repositories/manifests.ts';
import type { ObjectRepository } from '../store/repositories/objects.ts';
import type { SemanticCacheRepository } from '../store/repositories/semantic-cache.ts';
import { validate } from '../validation.ts';
import { type RestoreTestFailure, RestoreTestRequest, type RestoreTestResult } from './restore-test.ts';
import { parseSvcObjectFingerprint } from './source-fingerprint.ts';

const PAGE = 500;

export interface RestoreTestServiceDeps {
  manifests: ManifestService;
  manifestRows: ManifestRepository;
  objects: ObjectRepository;
  exactCache: CacheEntryRepository;
  semanticCache: SemanticCacheRepository;
  ledger: LedgerAppender;
  criticalPrefixes: readonly string[];
  defaultSampleSize: number;
  /** Present when an adapter that can verify tables logically is installed and enabled (src/svc/adapters/lakehouse). */
  tableVerifier?: TableVerifier;
}

/** The seam `table_logical` runs through: the recorded tables, and a logical check of one restored version. */
export interface TableVerifier {
  tables(tenant: string | undefined): AsyncIterable<{ manifest_id: string; record_id: string }>;
  verify(ctx: RequestContext, recordId: string, manifestId: string): Promise<{ passed: boolean; reason?: string }>;
}

export class RestoreTestService {
  readonly #d: RestoreTestServiceDeps;
  constructor(deps: RestoreTestServiceDeps) {
    this.#d = deps;
  }

  async run(ctx: RequestContext, raw: unknown): Promise<RestoreTestResult> {
    requirePermission(ctx.principal, 'restore_tests:run');
    const input = validate(RestoreTestRequest, raw);
    // A tenant-bound key tests its own tenant only; a deployment-wide key may name one or test all.
    const tenant = ctx.principal.tenant ?? input.tenant;
    if (ctx.principal.tenant !== undefined && input.tenant !== undefined && input.tenant !== ctx.principal.tenant) {
      throw new SvcError('tenant_forbidden', 'a tenant-bound key can only run restore tests on its own tenant');
    }
    const started = new Date().toISOString();
    const failures: RestoreTestFailure[] = [];
    let checked = 0;
    let status: RestoreTestResult['status'] = 'passed';
    const details: Record<string, unknown> = {};
    switch (input.kind) {
      case 'sampled_exact': {
        const sample = await this.#sample(tenant, input.sample_size ?? this.#d.defaultSampleSize);
        for (const m of sample) {
          checked++;
          const f = await this.#restore(ctx, m.manifest_id);
          if (f) failures.push(f);
        }
        details['sample_size'] = sample.length;
        break;
      }
      case 'critical_full': {
        const prefixes = input.prefixes ?? this.#d.criticalPrefixes;
        details['prefixes'] = prefixes;
        if (prefixes.length === 0) {
          status = 'not_applicable';
          details['reason'] = 'no critical datasets are configured (restore_tests.critical_prefixes) or named (prefixes)';
          break;
        }
        for await (const m of this.#manifests(tenant)) {
          if (m.state === 'quarantined' || !prefixes.some((p) => m.logical_ref.startsWith(p))) continue;
          checked++;
          const f = await this.#restore(ctx, m.manifest_id);
          if (f) failures.push(f);
        }
        break;
      }
      case 'table_logical': {
        const verifier = this.#d.tableVerifier;
        if (!verifier) {
          status = 'not_applicable';
          details['reason'] = 'no lakehouse adapter is installed or enabled: tables cannot be verified logically';
          break;
        }
        const started = performance.now();
        let quarantined = 0;
        for await (const t of verifier.tables(tenant)) {
          // As sampled_exact: a quarantined manifest is already a known, recorded failure awaiting repair.
          if ((await this.#d.manifestRows.get(t.manifest_id))?.state === 'quarantined') {
            quarantined++;
            continue;
          }
          checked++;
          try {
            const r = await verifier.verify(ctx, t.record_id, t.manifest_id);
            if (!r.passed) failures.push({ manifest_id: t.manifest_id, reason: `table_logical: ${r.reason ?? 'facts differ'}` });
          } catch (err) {
            if (err instanceof SvcError && (err.code === 'rehydration_failed' || err.code === 'manifest_not_found')) {
              failures.push({ manifest_id: t.manifest_id, reason: String(err.details?.['reason'] ?? err.code) });
            } else throw err;
          }
        }
        details['seconds'] = Math.round(performance.now() - started) / 1000;
        details['quarantined_skipped'] = quarantined;
        if (checked === 0) {
          status = 'not_applicable';
          details['reason'] = 'no table versions are recorded';
        }
        break;
      }
      case 'cache_source': {
        const r = await this.#cacheSources(tenant, failures);
        checked = r.checked;
        Object.assign(details, r.details);
        break;
      }
      case 'manifest_migration': {
        let older = 0;
        for await (const m of this.#manifests(tenant)) {
          if (m.schema_version >= MANIFEST_SCHEMA_VERSION || m.state === 'quarantined') continue;
          older++;
          checked++;
          try {
            readManifestDocument(m);
          } catch (err) {
            if (!(err instanceof ManifestReadError)) throw err;
            failures.push({ manifest_id: m.manifest_id, reason: `unreadable: ${err.reason}` });
            continue;
          }
          const f = await this.#restore(ctx, m.manifest_id);
          if (f) failures.push(f);
        }
        details['current_schema_version'] = MANIFEST_SCHEMA_VERSION;
        details['older_manifests'] = older;
        break;
      }
    }
    if (failures.length > 0) status = 'failed';
    const result: RestoreTestResult = { run_id: newId('rt'), kind: input.kind, status, tenant: tenant ?? null, started_at: started, finished_at: new Date().toISOString(), checked, failures, details };
    await this.#d.ledger.append({
      type: 'restore_test.completed',
      tenant: resolveTenant(ctx.principal, tenant),
      actor: ctx.principal.actor,
      trace_id: ctx.traceId,
      payload: { run_id: result.run_id, kind: result.kind, status, scope_tenant: tenant ?? null, checked, failed: failures.length, failures: failures.slice(0, 50) },
    });
    return result;
  }

  /** Full verified rehydration; a failure here is recorded (quarantine, incident, alert) by the manifest service. */
  async #restore(ctx: RequestContext, manifestId: string): Promise<RestoreTestFailure | undefined> {
    try {
      const rehydration = await this.#d.manifests.restoreFromStorage(ctx, manifestId);
      for await (const _ of rehydration.stream);
      return undefined;
    } catch (err) {
      // Expired by garbage collection between the listing and this read: the documented end of a deleted object.
      if (err instanceof SvcError && err.code === 'not_found' && err.details?.['reason'] === 'retention_expired') return undefined;
      if (err instanceof SvcError && err.code === 'rehydration_failed') {
        return { manifest_id: manifestId, reason: String(err.details?.['reason'] ?? 'rehydration_failed'), ...(err.details?.['chunk_id'] ? { chunk_id: String(err.details['chunk_id']) } : {}) };
      }
      throw err;
    }
  }

  /**
   * The manifests a restore test may read, page by page: a deleted object's
   * manifest whose retention expired (garbage collection may have taken its
   * chunks) is left out — its rehydration is refused as such, by design.
   */
  async *#manifests(tenant: string | undefined): AsyncGenerator<ByteManifest> {
    let after = '';
    for (;;) {
      const page = await this.#d.manifestRows.page(tenant, after, PAGE);
      for (const m of page) if (!(m.state === 'tombstoned' && m.state_reason === 'retention_expired')) yield m;
      if (page.length < PAGE) return;
      after = page[page.length - 1]!.manifest_id;
    }
  }

  /** Reservoir sample of the restorable manifests (active and tombstoned): uniform without loading them all. */
  async #sample(tenant: string | undefined, size: number): Promise<ByteManifest[]> {
    const reservoir: ByteManifest[] = [];
    let seen = 0;
    for await (const m of this.#manifests(tenant)) {
      if (m.state === 'quarantined') continue;
      seen++;
      if (reservoir.length < size) reservoir.push(m);
      else {
        const j = randomInt(seen);
        if (j < size) reservoir[j] = m;
      }
    }
    return reservoir;
  }

  async #cacheSources(tenant: string | undefined, failures: RestoreTestFailure[]): Promise<{ checked: number; details: Record<string, unknown> }> {
    let checked = 0;
    let invalidated = 0;
    let uncheckedFingerprints = 0;
    let after = { tenant: '', key: '' };
    for (;;) {
      const page = await this.#d.exactCache.scan(tenant, after, PAGE);
      for (const e of page) {
        checked++;
        const reason = this.#verifierNoLongerHolds(e.verification, e.value, e.verifier);
        if (reason) {
          await this.#d.exactCache.delete(e.tenant, e.key);
          invalidated++;
          failures.push({ entry: `exact:${e.key}`, reason });
        }
      }
      if (page.length < PAGE) break;
      after = { tenant: page[page.length - 1]!.tenant, key: page[page.length - 1]!.key };
    }
    let afterId = '';
    for (;;) {
      const page = await this.#d.semanticCache.scan(tenant, afterId, PAGE);
      for (const e of page) {
        checked++;
        let reason = this.#verifierNoLongerHolds(e.verification, e.value, e.verifier);
        for (const fp of e.source_fingerprints) {
          if (reason) break;
          const ref = parseSvcObjectFingerprint(fp);
          if (!ref) {
            uncheckedFingerprints++;
            continue;
          }
          const object = await this.#d.objects.get(e.tenant, ref.bucket, ref.key);
          if (!object || object.state !== 'active') reason = `source ${fp} no longer exists`;
          else if (object.sha256 !== ref.sha256) reason = `source ${fp} changed (now sha256:${object.sha256})`;
        }
        if (reason) {
          await this.#d.semanticCache.deleteById(e.tenant, e.id);
          invalidated++;
          failures.push({ entry: `semantic:${e.id}`, reason });
        }
      }
      if (page.length < PAGE) break;
      afterId = page[page.length - 1]!.id;
    }
    return { checked, details: { invalidated, unchecked_fingerprints: uncheckedFingerprints } };
  }

  #verifierNoLongerHolds(spec: Parameters<typeof runVerifier>[0], value: unknown, storedVerifier: string): string | undefined {
    const current = verifierNameOf(spec);
    if (current !== storedVerifier) return `verifier ${storedVerifier} is no longer current (${current})`;
    const outcome = runVerifier(spec, value);
    return outcome.passed ? undefined : `verifier ${outcome.verifier} no longer passes: ${outcome.reason}`;
  }
}
