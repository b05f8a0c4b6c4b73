/**
 * The JSON object gateway (`/v1/s3/...`): put, head, get, range, list and
 * delete over the exact-bytes path. Each put is a work unit (created, planned
 * under policy, executed by the exact executor); every operation is an audit
 * event in the ledger (`object.<operation>`).
 *
 * Delete is denied unless policy allows `object.delete` (a built-in default
 * deny); an allowed delete tombstones the manifest and keeps its chunks for
 * audit and rehydration. A quarantined object cannot be deleted.
 */
import { sha256Hex } from '../../core/hashing.ts';
import type { Permission } from '../auth/roles.ts';
import { requirePermission } from '../auth/principal.ts';
import type { TenantGuard } from '../auth/tenant-guard.ts';
import type { RequestContext } from '../context.ts';
import type { LegalHoldService } from '../legal-holds/legal-hold-service.ts';
import { SvcError } from '../errors.ts';
import { type Declaration, type DeclaredBody, declarationOf } from '../exact-bytes/declared-body.ts';
import type { ExactExecutor, ExecuteOptions, ExecuteResult } from '../exact-bytes/exact-executor.ts';
import type { Rehydration } from '../exact-bytes/rehydrate.ts';
import type { LedgerAppender } from '../ledger/appender.ts';
import type { ByteManifest } from '../manifests/manifest.ts';
import type { ManifestService } from '../manifests/manifest-service.ts';
import type { Plan } from '../plans/plan.ts';
import type { PlanService } from '../plans/service.ts';
import type { PolicyEvaluator } from '../policy/types.ts';
import type { ObjectRepository, ObjectRow } from '../store/repositories/objects.ts';
import { decodeContinuationToken, encodeContinuationToken } from '../continuation-token.ts';
import { validate } from '../validation.ts';
import type { WorkUnitService } from '../work-units/service.ts';
import type { WorkUnitRecord } from '../work-units/work-unit.ts';
import { decodeBody } from './request-body.ts';
import { inSpan, namespaceOf } from '../observability/tracing.ts';
import {
  DEFAULT_MAX_KEYS,
  ListObjectsRequest,
  ObjectKey,
  ObjectRefRequest,
  PutObjectRequest,
  RangeObjectRequest,
  RawPutObjectQuery,
  objectLogicalRef,
  objectNamespace,
} from './object-schemas.ts';

export interface ObjectGatewayDeps {
  objects: ObjectRepository;
  workUnits: WorkUnitService;
  plans: PlanService;
  executor: ExactExecutor;
  manifests: ManifestService;
  ledger: LedgerAppender;
  tenants: TenantGuard;
  policy: () => PolicyEvaluator;
  /** Refuses deletion of data under a legal hold (src/svc/legal-holds). */
  legalHolds?: Pick<LegalHoldService, 'assertDeletable'>;
}

/** What put and multipart completion return. */
export interface PutObjectResult extends ExecuteResult {
  bucket: string;
  key: string;
  size: number;
  etag: string;
}

export interface ObjectInfo {
  bucket: string;
  key: string;
  size: number;
  sha256: string;
  etag: string;
  state: 'active' | 'tombstoned';
  manifest_id: string;
  work_unit_id: string;
  content_type: string | null;
  updated_at: string;
}

export interface ObjectRead {
  info: ObjectInfo;
  manifest: ByteManifest;
  rehydration: Rehydration;
}

/** What the writer needs to store one object (shared by put and multipart completion). */
export interface StoreObjectInput {
  tenant: string;
  bucket: string;
  key: string;
  mode: 'observe' | 'enforce' | undefined;
  contentType: string | null;
  size: number;
  sha256: string | null;
  source: AsyncIterable<Uint8Array>;
  /** Forced chunk cuts (absolute offsets) from a format-aware adapter. */
  boundaries?: readonly number[];
  /**
   * A raw body's declaration (length and digest, up front or after the bytes; `size` and `sha256` then hold the
   * up-front ones, 0 and null when they come after): checked while streaming, and the work unit and plan are stored
   * only once it held, so a mismatch leaves no record.
   */
  declared?: Declaration;
}

function toInfo(row: ObjectRow): ObjectInfo {
  return {
    bucket: row.bucket,
    key: row.object_key,
    size: row.size,
    sha256: row.sha256,
    etag: `"${row.sha256}"`,
    state: row.state,
    manifest_id: row.manifest_id,
    work_unit_id: row.work_unit_id,
    content_type: row.content_type,
    updated_at: row.updated_at,
  };
}

/** Whether a decoded token position is a key the object schema accepts. */
function validateObjectKey(key: string): boolean {
  try {
    validate(ObjectKey, key);
    return true;
  } catch {
    return false;
  }
}

/** Object list tokens carry the last key of the previous page (scope `obj2/<tenant>/<bucket>`, percent-encoded). */
// The scope names the tenant and bucket listed: another tenant's (or bucket's) token is refused exactly like one
// this service never issued, so a stolen token tells nothing (decision 096).
// Components are percent-encoded so that no tenant/bucket pair can spell another's scope.
const objectTokenScope = (tenant: string, bucket: string): string => `obj2/${encodeURIComponent(tenant)}/${encodeURIComponent(bucket)}`;
const encodeToken = (tenant: string, bucket: string, key: string): string => encodeContinuationToken(objectTokenScope(tenant, bucket), key);
const decodeToken = (tenant: string, bucket: string, token: string): string =>
  decodeContinuationToken(objectTokenScope(tenant, bucket), token, (key) => validateObjectKey(key));

export class ObjectGateway {
  readonly #deps: ObjectGatewayDeps;
  constructor(deps: ObjectGatewayDeps) {
    this.#deps = deps;
  }

  async put(ctx: RequestContext, input: unknown): Promise<PutObjectResult> {
    requirePermission(ctx.principal, 'work_units:write');
    const body = validate(PutObjectRequest, input);
    const bytes = decodeBody(body);
    const tenant = await this.#deps.tenants.resolve(ctx, body.tenant, 'object.tenant');
    return this.storeObject(ctx, {
      tenant,
      bucket: body.bucket,
      key: body.key,
      mode: body.mode,
      contentType: body.content_type ?? null,
      size: bytes.byteLength,
      sha256: sha256Hex(bytes),
      source: (async function* () {
        yield bytes;
      })(),
    });
  }

  /**
   * `PUT /v1/s3/objects?bucket=&key=` with the object as the raw body: streamed through the exact executor without
   * buffering or base64, its declared length and digest checked on the way (decision 112).
   */
  async putRaw(ctx: RequestContext, query: unknown, body: DeclaredBody): Promise<PutObjectResult> {
    requirePermission(ctx.principal, 'work_units:write');
    const q = validate(RawPutObjectQuery, query, 'invalid_request', 'query parameters');
    const tenant = await this.#deps.tenants.resolve(ctx, q.tenant, 'object.tenant');
    return this.storeObject(ctx, {
      tenant,
      bucket: q.bucket,
      key: q.key,
      mode: q.mode,
      contentType: q.content_type ?? null,
      size: body.length ?? 0,
      sha256: body.sha256 ?? null,
      source: body.source,
      declared: declarationOf(body),
    });
  }

  /** Creates the work unit, plans it under policy, runs the exact executor and moves the object pointer. */
  async storeObject(ctx: RequestContext, input: StoreObjectInput): Promise<PutObjectResult> {
    const logicalRef = objectLogicalRef(input.bucket, input.key);
    const namespace = objectNamespace(input.bucket, input.key);
    const options = input.mode ? { mode: input.mode, namespace } : { namespace };
    const streamed = { tenant: input.tenant, logical_ref: logicalRef, size: input.size, sha256: input.sha256 };
    let wu: WorkUnitRecord;
    let plan: Plan;
    // The size is known before the bytes arrive (declared, or the sum of a multipart upload's parts): a large
    // object is hashed and compressed on the ingest worker (decision 189).
    let execute: ExecuteOptions = { sizeHint: input.size, ...(input.boundaries ? { boundaries: input.boundaries } : {}) };
    if (input.declared) {
      const prepared = this.#deps.workUnits.prepareStreamed(ctx, streamed);
      const deferred = await this.#deps.plans.planDeferred(ctx, prepared, options);
      wu = prepared.record;
      plan = deferred.plan;
      execute = { ...execute, declared: input.declared, beforeManifest: (ingested) => deferred.commit({ size: ingested.bytes_in, sha256: ingested.sha256 }) };
    } else {
      wu = await this.#deps.workUnits.createStreamed(ctx, streamed);
      plan = await this.#deps.plans.planById(ctx, wu.id, options);
    }
    const { result } = await this.#deps.executor.execute(ctx, { ...wu, state: 'planned', last_plan_id: plan.plan_id }, plan, input.source, execute);
    const row: ObjectRow = {
      tenant: input.tenant,
      bucket: input.bucket,
      object_key: input.key,
      manifest_id: result.manifest_id,
      work_unit_id: result.work_unit_id,
      state: 'active',
      size: result.details.bytes_in,
      sha256: result.output.sha256,
      content_type: input.contentType,
      updated_at: new Date().toISOString(),
    };
    await this.#deps.objects.upsert(row);
    await this.#audit(ctx, 'object.put', input.tenant, row, { bytes_in: result.details.bytes_in, bytes_stored: result.details.bytes_stored, mode: result.mode });
    return { ...result, bucket: input.bucket, key: input.key, size: result.details.bytes_in, etag: `"${result.output.sha256}"` };
  }

  async head(ctx: RequestContext, input: unknown): Promise<ObjectInfo> {
    const { tenant, row } = await this.#current(ctx, validate(ObjectRefRequest, input), 'work_units:read');
    await this.#audit(ctx, 'object.head', tenant, row);
    return toInfo(row);
  }

  /** `borrowBuffers`: the caller writes each piece out before it asks for the next (ManifestService.openVerified). */
  async get(ctx: RequestContext, input: unknown, options: { borrowBuffers?: boolean } = {}): Promise<ObjectRead> {
    const { tenant, row } = await this.#current(ctx, validate(ObjectRefRequest, input), 'work_units:read');
    return this.#read(ctx, tenant, row, 'object.get', undefined, options);
  }

  /** `borrowBuffers`: as for `get` (ranges borrow too, decision 195). */
  async range(ctx: RequestContext, input: unknown, options: { borrowBuffers?: boolean } = {}): Promise<ObjectRead> {
    const body = validate(RangeObjectRequest, input);
    const { tenant, row } = await this.#current(ctx, body, 'work_units:read');
    return this.#read(ctx, tenant, row, 'object.range', body.range, options);
  }

  async list(ctx: RequestContext, input: unknown): Promise<{ bucket: string; prefix: string; objects: ObjectInfo[]; is_truncated: boolean; next_continuation_token: string | null; max_keys: number }> {
    requirePermission(ctx.principal, 'work_units:read');
    const body = validate(ListObjectsRequest, input);
    const tenant = await this.#deps.tenants.resolve(ctx, body.tenant, 'object.tenant');
    const maxKeys = body.max_keys ?? DEFAULT_MAX_KEYS;
    const prefix = body.prefix ?? '';
    // One extra row tells whether there is a next page without a second query.
    const rows = await this.#deps.objects.list({
      tenant,
      bucket: body.bucket,
      prefix,
      afterKey: body.continuation_token ? decodeToken(tenant, body.bucket, body.continuation_token) : '',
      includeTombstoned: body.include_tombstoned ?? false,
      limit: maxKeys + 1,
    });
    const page = rows.slice(0, maxKeys);
    const truncated = rows.length > maxKeys;
    await this.#deps.ledger.append({
      type: 'object.list',
      tenant,
      actor: ctx.principal.actor,
      trace_id: ctx.traceId,
      payload: { bucket: body.bucket, prefix, returned: page.length, include_tombstoned: body.include_tombstoned ?? false },
    });
    return {
      bucket: body.bucket,
      prefix,
      objects: page.map(toInfo),
      is_truncated: truncated,
      next_continuation_token: truncated ? encodeToken(tenant, body.bucket, page[page.length - 1]!.object_key) : null,
      max_keys: maxKeys,
    };
  }

  async delete(ctx: RequestContext, input: unknown): Promise<{ bucket: string; key: string; state: 'tombstoned'; manifest_id: string; policy_bundle_id: string }> {
    const { tenant, row } = await this.#current(ctx, validate(ObjectRefRequest, input), 'objects:delete');
    // A legal hold wins over any policy that would allow the delete.
    await this.#deps.legalHolds?.assertDeletable(ctx, { tenant, namespace: objectNamespace(row.bucket, row.object_key), manifestId: row.manifest_id }, 'object.delete', row.work_unit_id);
    const policy = this.#deps.policy();
    const spanAttributes = { work_unit_id: row.work_unit_id, manifest_id: row.manifest_id, namespace: namespaceOf(row.bucket), action: 'object.delete', contract: 'exact_bytes', mode: 'enforce' };
    const decision = inSpan('svc.policy.evaluate', spanAttributes, () =>
      policy.evaluate({
        principal: { actor: ctx.principal.actor, roles: ctx.principal.roles, tenant: ctx.principal.tenant },
        tenant,
        namespace: objectNamespace(row.bucket, row.object_key),
        work_unit_id: row.work_unit_id,
        work_unit_kind: 'byte_object',
        contract: 'exact_bytes',
        mode: 'enforce',
        action: 'object.delete',
        action_class: 'operation',
        risk: 'medium',
      }),
    );
    if (!decision.allow) {
      await this.#audit(ctx, 'object.delete.denied', tenant, row, { action: 'object.delete', reasons: decision.reasons, matched_policy_ids: decision.matched_policy_ids }, decision.bundle.id);
      throw new SvcError('policy_denied', `delete of ${row.bucket}/… denied by policy: ${decision.reasons[0] ?? 'object deletion is denied by default'}`, {
        workUnitId: row.work_unit_id,
        policyBundleId: decision.bundle.id,
        details: { action: 'object.delete', matched_policy_ids: decision.matched_policy_ids },
      });
    }
    const manifest = await this.#deps.manifests.get(ctx, row.manifest_id);
    if (manifest.state === 'quarantined') {
      throw new SvcError('conflict', 'the object is quarantined after a rehydration failure; deletion is blocked until an operator releases it', {
        workUnitId: row.work_unit_id,
        details: { manifest_id: manifest.manifest_id, state: manifest.state },
      });
    }
    await this.#deps.manifests.tombstone(ctx, manifest, 'object_delete');
    await this.#deps.objects.tombstone(tenant, row.bucket, row.object_key, row.manifest_id);
    await this.#audit(ctx, 'object.delete', tenant, { ...row, state: 'tombstoned' }, { chunks_retained: true }, decision.bundle.id);
    return { bucket: row.bucket, key: row.object_key, state: 'tombstoned', manifest_id: row.manifest_id, policy_bundle_id: decision.bundle.id };
  }

  async #read(ctx: RequestContext, tenant: string, row: ObjectRow, type: 'object.get' | 'object.range', range: RangeObjectRequest['range'] | undefined, options: { borrowBuffers?: boolean } = {}): Promise<ObjectRead> {
    const manifest = await this.#deps.manifests.get(ctx, row.manifest_id);
    const rehydration = await this.#deps.manifests.openVerified(ctx, manifest, range, options);
    await this.#audit(ctx, type, tenant, row, rehydration.range ? { range_start: rehydration.range.start, range_end: rehydration.range.end } : {});
    return { info: toInfo(row), manifest, rehydration };
  }

  /** The current, non-tombstoned version of an object; anything else is not found. */
  async #current(ctx: RequestContext, ref: ObjectRefRequest, permission: Permission): Promise<{ tenant: string; row: ObjectRow }> {
    requirePermission(ctx.principal, permission);
    const tenant = await this.#deps.tenants.resolve(ctx, ref.tenant, 'object.tenant');
    const row = await this.#deps.objects.get(tenant, ref.bucket, ref.key);
    if (!row || row.state !== 'active') throw new SvcError('not_found', 'no such object', { details: { bucket: ref.bucket } });
    return { tenant, row };
  }

  async #audit(ctx: RequestContext, type: string, tenant: string, row: ObjectRow, extra: Record<string, unknown> = {}, policyBundleId?: string): Promise<void> {
    await this.#deps.ledger.append({
      type,
      tenant,
      actor: ctx.principal.actor,
      work_unit_id: row.work_unit_id,
      manifest_id: row.manifest_id,
      policy_bundle_id: policyBundleId ?? null,
      trace_id: ctx.traceId,
      payload: { bucket: row.bucket, key: row.object_key, size: row.size, sha256: row.sha256, ...extra },
    });
  }
}
