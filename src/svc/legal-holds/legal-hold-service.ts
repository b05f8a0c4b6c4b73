/**
 * Placing, releasing and enforcing legal holds. Placing and releasing need
 * `policy:publish` (a hold is policy) and are ledger events; enforcement is
 * `assertDeletable`, called by every deletion path before it changes anything.
 */
import { newId } from '../../core/ids.ts';
import { requirePermission } from '../auth/principal.ts';
import type { TenantGuard } from '../auth/tenant-guard.ts';
import type { RequestContext } from '../context.ts';
import { SvcError } from '../errors.ts';
import type { LedgerAppender } from '../ledger/appender.ts';
import { LegalHoldRepository } from '../store/repositories/legal-holds.ts';
import { validate } from '../validation.ts';
import { type HeldSubject, type LegalHold, PlaceLegalHoldRequest, holdCovers } from './legal-hold.ts';

export interface LegalHoldServiceDeps {
  repo: LegalHoldRepository;
  ledger: LedgerAppender;
  tenants: TenantGuard;
  /** Counts refused deletions (svc_legal_hold_deletion_attempts_total, a critical alert). */
  onBlocked: () => void;
}

export class LegalHoldService {
  readonly #d: LegalHoldServiceDeps;
  constructor(deps: LegalHoldServiceDeps) {
    this.#d = deps;
  }

  async place(ctx: RequestContext, input: unknown): Promise<LegalHold> {
    requirePermission(ctx.principal, 'policy:publish');
    const body = validate(PlaceLegalHoldRequest, input);
    const tenant = await this.#d.tenants.resolve(ctx, body.tenant, 'legal_hold.tenant');
    if (body.scope === 'tenant' && body.target !== undefined) throw new SvcError('invalid_request', 'a tenant-wide hold takes no target');
    if (body.scope !== 'tenant' && body.target === undefined) throw new SvcError('invalid_request', `a ${body.scope} hold needs a target (${body.scope === 'prefix' ? 'bucket/key-prefix' : 'a manifest id'})`);
    const hold: LegalHold = {
      id: newId('lh'),
      tenant,
      scope: body.scope,
      target: body.target ?? '',
      reason: body.reason,
      placed_by: ctx.principal.actor,
      placed_at: new Date().toISOString(),
      released_by: null,
      released_at: null,
    };
    await this.#d.ledger.commit({
      write: (tx) => new LegalHoldRepository(tx).insert(hold),
      events: [{ type: 'legal_hold.placed', tenant, actor: ctx.principal.actor, trace_id: ctx.traceId, payload: { legal_hold_id: hold.id, scope: hold.scope, target: hold.target, reason: hold.reason } }],
    });
    return hold;
  }

  async release(ctx: RequestContext, id: string): Promise<LegalHold> {
    requirePermission(ctx.principal, 'policy:publish');
    const hold = await this.#d.repo.get(id);
    if (!hold) throw new SvcError('not_found', `legal hold ${id} not found`);
    await this.#d.tenants.resolve(ctx, hold.tenant, 'legal_hold.tenant');
    if (hold.released_at !== null) throw new SvcError('conflict', `legal hold ${id} was already released`);
    const at = new Date().toISOString();
    await this.#d.ledger.commit({
      write: async (tx) => {
        const repo = new LegalHoldRepository(tx);
        if (!(await repo.release(id, ctx.principal.actor, at))) throw new SvcError('conflict', `legal hold ${id} was released concurrently`);
      },
      events: [{ type: 'legal_hold.released', tenant: hold.tenant, actor: ctx.principal.actor, trace_id: ctx.traceId, payload: { legal_hold_id: id } }],
    });
    return { ...hold, released_by: ctx.principal.actor, released_at: at };
  }

  async list(ctx: RequestContext, tenant: string | undefined): Promise<{ legal_holds: LegalHold[] }> {
    requirePermission(ctx.principal, 'policy:read');
    return { legal_holds: await this.#d.repo.active(await this.#d.tenants.filter(ctx, tenant, 'legal_hold.tenant')) };
  }

  /**
   * Throws `policy_denied` (after recording `legal_hold.deletion_blocked`)
   * when an active hold covers the subject. Deletion paths call it first.
   */
  async assertDeletable(ctx: RequestContext, subject: HeldSubject, action: string, workUnitId?: string): Promise<void> {
    const hold = (await this.#d.repo.active(subject.tenant)).find((h) => holdCovers(h, subject));
    if (!hold) return;
    this.#d.onBlocked();
    await this.#d.ledger.append({
      type: 'legal_hold.deletion_blocked',
      tenant: subject.tenant,
      actor: ctx.principal.actor,
      manifest_id: subject.manifestId,
      work_unit_id: workUnitId ?? null,
      trace_id: ctx.traceId,
      payload: { legal_hold_id: hold.id, scope: hold.scope, action },
    });
    throw new SvcError('policy_denied', `${action} refused: the data is under legal hold ${hold.id}`, {
      ...(workUnitId ? { workUnitId } : {}),
      details: { legal_hold_id: hold.id, scope: hold.scope, action },
    });
  }
}
