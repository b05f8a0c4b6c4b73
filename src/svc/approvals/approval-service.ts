/**
 * Signed approvals: issue, read, list, revoke, and the check executors run
 * before acting under a `requires_approval` obligation. Every refusal is a
 * distinct reason (approval-refusal.ts) and a ledger event; the actor is
 * always the authenticated principal.
 */
import { requirePermission, resolveTenant } from '../auth/principal.ts';
import { assertIdCursor } from '../continuation-token.ts';
import { newId } from '../../core/ids.ts';
import { SvcError } from '../errors.ts';
import { validate } from '../validation.ts';
import type { AuditSink, DomainContext } from '../policy/audit-event.ts';
import type { BundleRef } from '../policy/types.ts';
import {
  type ApprovalRecord,
  type ApprovalScope,
  CreateApprovalRequest,
  DEFAULT_APPROVAL_TTL_SECONDS,
  RedeemApprovalRequest,
} from './approval-record.ts';
import { CONTRACTS } from '../work-units/work-unit.ts';
import { type ApprovalRefusalReason, approvalRefusal } from './approval-refusal.ts';
import type { ApprovalRepository } from './approval-repository.ts';
import { signApprovalToken, verifyApprovalToken } from './approval-token.ts';
import type { ApprovalSigningKey } from './signing-key.ts';

export interface ApprovalServiceOptions {
  repository: ApprovalRepository;
  key: ApprovalSigningKey;
  audit: AuditSink;
  /** The bundle in force (approvals bind to it). */
  activeBundle: () => BundleRef;
  /** The tenant of a stored work unit, or undefined when there is none (approvals bind only to existing units). */
  workUnitTenant: (workUnitId: string) => Promise<string | undefined>;
  now?: () => Date;
}

export interface IssuedApproval {
  approval: ApprovalRecord;
  /** The compact JWS to present as `X-SVC-Approval`. Returned once, never stored. */
  token: string;
}

export class ApprovalService {
  readonly #repo: ApprovalRepository;
  readonly #key: ApprovalSigningKey;
  readonly #audit: AuditSink;
  readonly #activeBundle: () => BundleRef;
  readonly #workUnitTenant: (workUnitId: string) => Promise<string | undefined>;
  readonly #now: () => Date;

  constructor(options: ApprovalServiceOptions) {
    this.#repo = options.repository;
    this.#key = options.key;
    this.#audit = options.audit;
    this.#activeBundle = options.activeBundle;
    this.#workUnitTenant = options.workUnitTenant;
    this.#now = options.now ?? (() => new Date());
  }

  /** The published verification key (JWK). */
  publicKey(): Record<string, unknown> {
    return { ...this.#key.publicJwk };
  }

  /** Issues an approval under the bundle in force. Requires `approvals:create`. */
  async create(ctx: DomainContext, body: unknown): Promise<IssuedApproval> {
    requirePermission(ctx.principal, 'approvals:create');
    const request = validate(CreateApprovalRequest, body);
    const tenant = resolveTenant(ctx.principal, request.tenant);
    const bundle = this.#activeBundle();
    if (request.bundle_id !== undefined && request.bundle_id !== bundle.id) {
      throw new SvcError('invalid_request', `approvals are issued under the bundle in force (${bundle.id}), not ${request.bundle_id}`, {
        policyBundleId: bundle.id,
        details: { requested_bundle_id: request.bundle_id },
      });
    }
    if (!(CONTRACTS as readonly string[]).includes(request.contract)) {
      throw new SvcError('invalid_request', `unknown contract '${request.contract}'; valid contracts: ${CONTRACTS.join(', ')}`, {
        policyBundleId: bundle.id,
        details: { contract: request.contract, valid: [...CONTRACTS] },
      });
    }
    if (request.work_unit_id !== undefined && (await this.#workUnitTenant(request.work_unit_id)) !== tenant) {
      // The same answer for "another tenant's" and "does not exist": ids do not leak across tenants.
      throw new SvcError('not_found', `no work unit '${request.work_unit_id}' in tenant '${tenant}'`, { policyBundleId: bundle.id, details: { work_unit_id: request.work_unit_id } });
    }
    const now = this.#now();
    // JWT times have one-second resolution; store the same instants so record and token agree.
    const createdAt = new Date(Math.floor(now.getTime() / 1000) * 1000);
    const expiresAt = new Date(createdAt.getTime() + (request.ttl_seconds ?? DEFAULT_APPROVAL_TTL_SECONDS) * 1000);
    const approval: ApprovalRecord = {
      id: newId('apr'),
      tenant,
      contract: request.contract,
      bundle_id: bundle.id,
      bundle_hash: bundle.hash,
      work_unit_id: request.work_unit_id ?? null,
      single_use: request.single_use ?? true,
      actor: ctx.principal.actor,
      reason: request.reason ?? null,
      created_at: createdAt.toISOString(),
      expires_at: expiresAt.toISOString(),
      revoked_at: null,
      revoked_by: null,
      used_at: null,
    };
    const token = await signApprovalToken(approval, this.#key.privateKey, this.#key.kid);
    await this.#repo.insert(approval);
    await this.#audit.append({
      type: 'approval.created',
      tenant,
      actor: ctx.principal.actor,
      policy_bundle_id: bundle.id,
      ...(approval.work_unit_id ? { work_unit_id: approval.work_unit_id } : {}),
      ...(ctx.traceId ? { trace_id: ctx.traceId } : {}),
      payload: {
        approval_id: approval.id,
        contract: approval.contract,
        bundle_hash: approval.bundle_hash,
        single_use: approval.single_use,
        expires_at: approval.expires_at,
      },
    });
    return { approval, token };
  }

  async get(ctx: DomainContext, id: string): Promise<ApprovalRecord> {
    requirePermission(ctx.principal, 'policy:read');
    const record = await this.#repo.get(id);
    // A tenant-bound caller gets "not found" for other tenants' approvals, so ids do not leak across tenants.
    if (!record || (ctx.principal.tenant !== undefined && record.tenant !== ctx.principal.tenant)) {
      throw new SvcError('not_found', `no approval '${id}'`);
    }
    return record;
  }

  async list(ctx: DomainContext, query: { tenant?: string; limit?: number; after?: string }): Promise<ApprovalRecord[]> {
    requirePermission(ctx.principal, 'policy:read');
    assertIdCursor('after', query.after, 'apr');
    const tenant = ctx.principal.tenant !== undefined || query.tenant !== undefined ? resolveTenant(ctx.principal, query.tenant) : undefined;
    return this.#repo.list({ ...(tenant ? { tenant } : {}), limit: Math.min(Math.max(query.limit ?? 100, 1), 1000), ...(query.after ? { after: query.after } : {}) });
  }

  /** Revokes an approval; later presentations are refused with reason `revoked`. */
  async revoke(ctx: DomainContext, id: string): Promise<ApprovalRecord> {
    requirePermission(ctx.principal, 'approvals:create');
    const record = await this.get(ctx, id);
    const at = this.#now().toISOString();
    const changed = await this.#repo.revoke(id, ctx.principal.actor, at);
    if (changed) {
      await this.#audit.append({
        type: 'approval.revoked',
        tenant: record.tenant,
        actor: ctx.principal.actor,
        policy_bundle_id: record.bundle_id,
        ...(ctx.traceId ? { trace_id: ctx.traceId } : {}),
        payload: { approval_id: id },
      });
    }
    return (await this.#repo.get(id)) ?? record;
  }

  /**
   * The executors' check for a `requires_approval` obligation. Verifies the
   * token's signature and expiry, the server record (known, not revoked),
   * the scope (tenant, contract, bundle id and hash, work unit), and consumes
   * a single-use approval atomically. Throws `approval_required` /
   * `approval_invalid` (reason in `details.reason`) after writing
   * `approval.refused`; on success writes `approval.used`.
   */
  async assertApproved(ctx: DomainContext, scope: ApprovalScope, token: string | undefined): Promise<ApprovalRecord> {
    const refuse = async (reason: ApprovalRefusalReason, approvalId?: string): Promise<never> => {
      const err = approvalRefusal(reason, approvalId).withContext({ workUnitId: scope.work_unit_id, policyBundleId: scope.bundle.id });
      await this.#audit.append({
        type: 'approval.refused',
        tenant: scope.tenant,
        actor: ctx.principal.actor,
        policy_bundle_id: scope.bundle.id,
        ...(scope.work_unit_id ? { work_unit_id: scope.work_unit_id } : {}),
        ...(ctx.traceId ? { trace_id: ctx.traceId } : {}),
        payload: { reason, approval_id: approvalId ?? null, contract: scope.contract },
      });
      throw err;
    };

    if (token === undefined || token.trim() === '') return refuse('missing');
    const now = this.#now();
    const check = await verifyApprovalToken(token.trim(), this.#key.publicKey, now);
    if (!check.ok) return refuse(check.reason, check.approvalId);
    const claims = check.claims;
    const record = await this.#repo.get(claims.jti);
    if (!record) return refuse('unknown', claims.jti);
    if (record.revoked_at !== null) return refuse('revoked', record.id);
    if (Date.parse(record.expires_at) <= now.getTime()) return refuse('expired', record.id);
    if (record.tenant !== scope.tenant || claims.tenant !== scope.tenant) return refuse('tenant_mismatch', record.id);
    if (record.contract !== scope.contract) return refuse('contract_mismatch', record.id);
    if (record.bundle_id !== scope.bundle.id || record.bundle_hash !== scope.bundle.hash || claims.bundle_hash !== scope.bundle.hash) {
      return refuse('bundle_mismatch', record.id);
    }
    if (record.work_unit_id !== null && record.work_unit_id !== scope.work_unit_id) return refuse('work_unit_mismatch', record.id);
    if (record.single_use && !(await this.#repo.consume(record.id, now.toISOString()))) return refuse('replayed', record.id);
    await this.#audit.append({
      type: 'approval.used',
      tenant: scope.tenant,
      actor: ctx.principal.actor,
      policy_bundle_id: scope.bundle.id,
      ...(scope.work_unit_id ? { work_unit_id: scope.work_unit_id } : {}),
      ...(ctx.traceId ? { trace_id: ctx.traceId } : {}),
      payload: { approval_id: record.id, approved_by: record.actor, single_use: record.single_use },
    });
    return record;
  }

  /**
   * `POST /v1/approvals/redeem`: `assertApproved` for a caller outside the
   * process, under the bundle in force. Requires `work_units:write`, the
   * permission of whoever would execute the approved work.
   */
  async redeem(ctx: DomainContext, body: unknown, token: string | undefined): Promise<ApprovalRecord> {
    requirePermission(ctx.principal, 'work_units:write');
    const request = validate(RedeemApprovalRequest, body);
    const scope: ApprovalScope = { tenant: resolveTenant(ctx.principal, request.tenant), contract: request.contract, bundle: this.#activeBundle() };
    if (request.work_unit_id) scope.work_unit_id = request.work_unit_id;
    return this.assertApproved(ctx, scope, token);
  }
}
