/**
 * The mutating calls that are not work units by themselves, each run as an
 * operation work unit (operation-units.ts): the one domain entry point the
 * REST routes, gRPC services and CLI (through REST) call for them. Each
 * answer is the service's own answer plus `work_unit_id`.
 */
import type { ApprovalService } from '../approvals/approval-service.ts';
import { CacheStoreRequest, SemanticCalibrateRequest, SemanticStoreRequest } from '../cache/cache-schemas.ts';
import type { ExactCache } from '../cache/exact/exact-cache.ts';
import type { SemanticCache } from '../cache/semantic/semantic-cache.ts';
import { resolveTenant } from '../auth/principal.ts';
import type { RequestContext } from '../context.ts';
import { SvcError } from '../errors.ts';
import type { ManifestExporter } from '../manifests/manifest-export.ts';
import type { ObjectGateway } from '../objects/object-gateway.ts';
import type { PolicyService } from '../policy/policy-service.ts';
import type { Switchboard } from '../rollout/switchboard.ts';
import { validate } from '../validation.ts';
import type { OperationUnits } from './operation-units.ts';

export interface TrackedOperationsDeps {
  units: OperationUnits;
  exactCache: ExactCache;
  semanticCache: SemanticCache;
  approvals: ApprovalService;
  switchboard: Switchboard;
  policy: PolicyService;
  objects: ObjectGateway;
  exporter: ManifestExporter;
}

export class TrackedOperations {
  readonly #d: TrackedOperationsDeps;
  constructor(deps: TrackedOperationsDeps) {
    this.#d = deps;
  }

  /** `POST /v1/s3/objects/delete`: tombstones the object (policy permitting). */
  objectDelete(ctx: RequestContext, body: unknown) {
    return this.#d.units.run(ctx, 'object_delete', () => this.#d.objects.delete(ctx, body), (r) => ({
      tenant: resolveTenant(ctx.principal, (body as { tenant?: string } | null)?.tenant),
      logical_ref: `s3://${r.bucket}/${r.key}`,
      metadata: { bucket: r.bucket, manifest_id: r.manifest_id, policy_bundle_id: r.policy_bundle_id },
      manifest_id: r.manifest_id,
    }));
  }

  /** `POST /v1/cache/store`. */
  cacheStore(ctx: RequestContext, body: unknown) {
    return this.#d.units.run(ctx, 'cache_store', () => this.#d.exactCache.store(ctx, validate(CacheStoreRequest, body)), (r) => ({
      tenant: r.tenant,
      logical_ref: `svc://cache/exact/${r.key}`,
      metadata: { key: r.key, verifier: r.verifier },
    }));
  }

  /** `POST /v1/cache/semantic/store`. */
  semanticStore(ctx: RequestContext, body: unknown) {
    const request = validate(SemanticStoreRequest, body);
    return this.#d.units.run(ctx, 'semantic_cache_store', () => this.#d.semanticCache.store(ctx, request), (r) => ({
      tenant: resolveTenant(ctx.principal, request.tenant),
      logical_ref: `svc://cache/semantic/${r.id}`,
      metadata: { entry_id: r.id, domain: request.domain, verifier: r.verifier },
    }));
  }

  /** `POST /v1/cache/semantic/clear`. */
  semanticClear(ctx: RequestContext, body: { tenant?: string; domain?: string }) {
    return this.#d.units.run(ctx, 'semantic_cache_clear', () => this.#d.semanticCache.clear(ctx, body), (r) => ({
      tenant: r.tenant,
      logical_ref: `svc://cache/semantic/clear`,
      metadata: { removed: String(r.removed), ...(body.domain ? { domain: body.domain } : {}) },
    }));
  }

  /** `POST /v1/cache/semantic/calibrate`: the domain's threshold at the tenant's target false acceptance. */
  semanticCalibrate(ctx: RequestContext, body: unknown) {
    const request = validate(SemanticCalibrateRequest, body);
    return this.#d.units.run(ctx, 'semantic_cache_calibrate', () => this.#d.semanticCache.calibrate(ctx, request), (r) => ({
      tenant: r.calibration.tenant,
      logical_ref: `svc://cache/semantic/calibrations/${r.calibration.id}`,
      metadata: { calibration_id: r.calibration.id, domain: r.calibration.domain, threshold: String(r.calibration.threshold) },
    }));
  }

  /** `POST /v1/approvals`. The token is in the answer only, never in the work unit. */
  approvalIssue(ctx: RequestContext, body: unknown) {
    return this.#d.units.run(ctx, 'approval_issue', () => this.#d.approvals.create(ctx, body), (r) => ({
      tenant: r.approval.tenant,
      logical_ref: `svc://approvals/${r.approval.id}`,
      metadata: { approval_id: r.approval.id, contract: r.approval.contract, bundle_id: r.approval.bundle_id, ...(r.approval.work_unit_id ? { approved_work_unit_id: r.approval.work_unit_id } : {}) },
    }));
  }

  /** `POST /v1/approvals/{id}/revoke`. */
  approvalRevoke(ctx: RequestContext, id: string) {
    return this.#d.units.run(ctx, 'approval_revoke', async () => ({ approval: await this.#d.approvals.revoke(ctx, id) }), (r) => ({
      tenant: r.approval.tenant,
      logical_ref: `svc://approvals/${r.approval.id}`,
      metadata: { approval_id: r.approval.id },
    }));
  }

  /** `POST /v1/approvals/redeem`: checks the presented approval for a scope and consumes it if single-use. */
  approvalRedeem(ctx: RequestContext, body: unknown, token: string | undefined) {
    return this.#d.units.run(ctx, 'approval_redeem', async () => ({ approved: true as const, approval: await this.#d.approvals.redeem(ctx, body, token) }), (r) => ({
      tenant: r.approval.tenant,
      logical_ref: `svc://approvals/${r.approval.id}`,
      metadata: { approval_id: r.approval.id, single_use: String(r.approval.single_use) },
    }));
  }

  /** `POST /v1/admin/switches`. */
  switchChange(ctx: RequestContext, body: unknown) {
    return this.#d.units.run(ctx, 'switch_change', () => this.#d.switchboard.apply(ctx, body), (r) => {
      const name = String((body as { switch?: unknown }).switch);
      const tenant = typeof r.effect?.['tenant'] === 'string' ? (r.effect['tenant'] as string) : resolveTenant(ctx.principal, undefined);
      return { tenant, logical_ref: `svc://admin/switches/${name}`, metadata: { switch: name } };
    });
  }

  /** `POST /v1/policies/bundles/{name}/publish`. */
  policyPublish(ctx: RequestContext, name: string, document: string) {
    return this.#d.units.run(ctx, 'policy_publish', () => this.#d.policy.publish(ctx, name, document), (r) => ({
      tenant: resolveTenant(ctx.principal, undefined),
      logical_ref: `svc://policies/bundles/${name}`,
      metadata: { bundle_id: r.bundle.id, version: String(r.bundle.version), created: String(r.created) },
    }));
  }

  /** `POST /v1/manifests/import`: manifests (and chunks) of an export document. */
  manifestImport(ctx: RequestContext, body: unknown) {
    return this.#d.units.run(ctx, 'manifest_import', () => this.#d.exporter.import(ctx, body), (r) => ({
      tenant: resolveTenant(ctx.principal, undefined),
      logical_ref: 'svc://manifests/import',
      metadata: { manifests_imported: String(r.manifests_imported), manifests_skipped: String(r.manifests_skipped), chunks_written: String(r.chunks_written) },
    }));
  }

  /**
   * `POST /v1/policies/bundles/{name}/reload`. An invalid bundle on disk is
   * refused (the bundle in force is kept) and reloads nothing.
   */
  policyReload(ctx: RequestContext, name: string) {
    return this.#d.units.run(
      ctx,
      'policy_reload',
      async () => {
        const result = await this.#d.policy.reload(ctx, name);
        if (!result.reloaded) {
          throw new SvcError('invalid_request', `bundle '${name}' on disk is invalid; the bundle in force was kept`, {
            policyBundleId: result.kept.id,
            details: { errors: result.errors, kept: result.kept },
          });
        }
        return result;
      },
      (r) => ({ tenant: resolveTenant(ctx.principal, undefined), logical_ref: `svc://policies/bundles/${name}`, metadata: { bundle_id: r.bundle.id, changed: String(r.changed) } }),
    );
  }
}
