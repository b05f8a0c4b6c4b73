/**
 * Work unit creation and lookup. Validates the body, binds the tenant,
 * decodes the payload once (binary envelope → bytes), stores the record and
 * writes `work_unit.created`.
 */
import { decodeBase64Strict } from '../../core/base64.ts';
import { sha256Hex } from '../../core/hashing.ts';
import { newId } from '../../core/ids.ts';
import { requirePermission } from '../auth/principal.ts';
import type { TenantGuard } from '../auth/tenant-guard.ts';
import type { RequestContext } from '../context.ts';
import { SvcError } from '../errors.ts';
import type { LedgerAppender } from '../ledger/appender.ts';
import type { LedgerEventInput } from '../ledger/event.ts';
import type { Db } from '../store/db.ts';
import { WorkUnitRepository } from '../store/repositories/work-units.ts';
import { validate } from '../validation.ts';
import { type StoredPayload, type WorkUnitRecord, WorkUnitCreate } from './work-unit.ts';
import { DEFAULT_LIST_LIMIT, WorkUnitListQuery, decodeContinuationToken, encodeContinuationToken, normaliseTimestamp } from './work-unit-list.ts';

/** Largest payload accepted inline in a work unit (bytes after base64 decoding). Larger objects use multipart. */
export const MAX_INLINE_PAYLOAD_BYTES = 8 * 1024 * 1024;

interface Deps {
  workUnits: WorkUnitRepository;
  ledger: LedgerAppender;
  tenants: TenantGuard;
  /** Called for every work unit created, whatever the surface (metrics). */
  onCreated?: (wu: WorkUnitRecord) => void;
}

function decodePayload(body: WorkUnitCreate): { payload: StoredPayload; size: number; sha256: string | null } {
  const p = body.payload as Record<string, unknown> | undefined;
  if (body.kind === 'byte_object') {
    if (!p || p._svc_encoding !== 'base64' || typeof p.data !== 'string') {
      throw new SvcError('invalid_work_unit', 'a byte_object work unit needs payload {"_svc_encoding":"base64","data":"…"}');
    }
    const bytes = decodeBase64Strict(p.data);
    if (!bytes) throw new SvcError('invalid_work_unit', 'payload.data is not valid base64 (standard alphabet, padded)');
    if (bytes.byteLength > MAX_INLINE_PAYLOAD_BYTES) {
      throw new SvcError('payload_too_large', `inline payloads are limited to ${MAX_INLINE_PAYLOAD_BYTES} bytes; use multipart upload for larger objects`);
    }
    return { payload: { kind: 'binary', bytes }, size: bytes.byteLength, sha256: sha256Hex(bytes) };
  }
  if (body.kind === 'prompt_request' || body.kind === 'completion_request' || body.kind === 'embedding_request') {
    if (!p) throw new SvcError('invalid_work_unit', `a ${body.kind} work unit needs a payload`);
    if (body.kind === 'prompt_request' && !Array.isArray(p.messages)) {
      throw new SvcError('invalid_work_unit', 'a prompt_request payload needs messages: [{role, content}]');
    }
    const text = JSON.stringify(p);
    return { payload: { kind: 'json', value: p }, size: Buffer.byteLength(text), sha256: sha256Hex(text) };
  }
  return { payload: { kind: 'none' }, size: 0, sha256: null };
}

/** A byte_object work unit whose bytes arrive as a stream: the record keeps their size and digest. */
export interface StreamedWorkUnitInput {
  tenant: string;
  logical_ref: string;
  size: number;
  sha256: string | null;
  metadata?: Record<string, string> | undefined;
}

/** A validated work unit not stored yet: its record and its `work_unit.created` event. */
export interface NewWorkUnit {
  record: WorkUnitRecord;
  event: LedgerEventInput;
}

export class WorkUnitService {
  readonly #deps: Deps;
  constructor(deps: Deps) {
    this.#deps = deps;
  }

  async create(ctx: RequestContext, input: unknown): Promise<WorkUnitRecord> {
    return this.persist(await this.prepare(ctx, input));
  }

  /**
   * Validates and builds a new work unit without storing it, so a caller can
   * store it in the same transaction as what follows (inline planning).
   * `persist` or `write` must follow.
   */
  async prepare(ctx: RequestContext, input: unknown): Promise<NewWorkUnit> {
    requirePermission(ctx.principal, 'work_units:write');
    const body = validate(WorkUnitCreate, input, 'invalid_work_unit');
    const tenant = await this.#deps.tenants.resolve(ctx, body.tenant, 'work_unit.tenant');
    const { payload, size, sha256 } = decodePayload(body);
    return this.#build(ctx, {
      tenant,
      kind: body.kind,
      logical_ref: body.logical_ref,
      requested_contract: body.requested_contract ?? 'exact_bytes',
      metadata: body.metadata ?? {},
      payload,
      payload_size: size,
      payload_sha256: sha256,
    });
  }

  /**
   * Records a byte_object work unit whose bytes arrive as a stream (object
   * gateway put, multipart completion) instead of inside the request: the
   * record keeps their size and digest, the bytes go to the chunk store only.
   * The caller has resolved `tenant` and checked permissions.
   */
  async createStreamed(ctx: RequestContext, input: StreamedWorkUnitInput): Promise<WorkUnitRecord> {
    return this.persist(this.prepareStreamed(ctx, input));
  }

  /**
   * A streamed byte_object work unit built but not stored (the raw byte
   * routes store it only once its bytes have arrived as declared:
   * PlanService.planDeferred). Same record and event as `createStreamed`.
   */
  prepareStreamed(ctx: RequestContext, input: StreamedWorkUnitInput & { requested_contract?: string | undefined }): NewWorkUnit {
    return this.#build(
      ctx,
      {
        tenant: input.tenant,
        kind: 'byte_object',
        logical_ref: input.logical_ref,
        requested_contract: input.requested_contract ?? 'exact_bytes',
        metadata: input.metadata ?? {},
        payload: { kind: 'none' },
        payload_size: input.size,
        payload_sha256: input.sha256,
      },
      { payload_transport: 'stream' },
    );
  }

  /**
   * Records a mutating call that ran as an operation work unit (object delete,
   * cache store, approvals, switches, policy publish/reload): state
   * `executed`, no payload, its `work_unit.created` event. `id` was allocated
   * before the call so the call's own ledger events name it
   * (src/svc/operations). The caller has resolved `tenant`.
   */
  async recordOperation(
    ctx: RequestContext,
    id: string,
    fields: { tenant: string; kind: string; logical_ref: string; metadata: Record<string, string>; manifest_id?: string | null },
    state: 'executed' | 'failed' = 'executed',
  ): Promise<WorkUnitRecord> {
    const prepared = this.#build(
      ctx,
      { tenant: fields.tenant, kind: fields.kind, logical_ref: fields.logical_ref, requested_contract: 'exact_bytes', metadata: fields.metadata, payload: { kind: 'none' }, payload_size: 0, payload_sha256: null },
      { operation: true },
    );
    const record: WorkUnitRecord = { ...prepared.record, id, state, manifest_id: fields.manifest_id ?? null };
    return this.persist({ record, event: { ...prepared.event, work_unit_id: id } });
  }

  /** A new work unit record (state `created`) and its `work_unit.created` event. */
  #build(
    ctx: RequestContext,
    fields: Pick<WorkUnitRecord, 'tenant' | 'kind' | 'logical_ref' | 'requested_contract' | 'metadata' | 'payload' | 'payload_size' | 'payload_sha256'>,
    extraEventPayload: Record<string, unknown> = {},
  ): NewWorkUnit {
    const now = new Date().toISOString();
    const record: WorkUnitRecord = {
      ...fields,
      id: newId('wu'),
      state: 'created',
      created_by: ctx.principal.actor,
      trace_id: ctx.traceId,
      last_plan_id: null,
      manifest_id: null,
      created_at: now,
      updated_at: now,
    };
    const event: LedgerEventInput = {
      type: 'work_unit.created',
      tenant: record.tenant,
      actor: ctx.principal.actor,
      work_unit_id: record.id,
      trace_id: ctx.traceId,
      payload: { kind: record.kind, requested_contract: record.requested_contract, payload_size: record.payload_size, payload_sha256: record.payload_sha256, ...extraEventPayload },
    };
    return { record, event };
  }

  /** Stores a prepared work unit and its event in one commit. */
  async persist(prepared: NewWorkUnit): Promise<WorkUnitRecord> {
    await this.#deps.ledger.commit({ write: (tx) => this.write(tx, prepared), events: [prepared.event] });
    this.created(prepared);
    return prepared.record;
  }

  /** Writes a prepared work unit's row inside someone else's commit (its event goes with that commit). */
  async write(tx: Db, prepared: NewWorkUnit): Promise<void> {
    await new WorkUnitRepository(tx).insert(prepared.record);
  }

  /** Reports a committed work unit (metrics); called once per work unit. */
  created(prepared: NewWorkUnit): void {
    this.#deps.onCreated?.(prepared.record);
  }

  /**
   * A page of work units the caller may see, oldest first. A tenant-bound key
   * sees its own tenant only (naming another is `tenant_forbidden`, audited);
   * an unbound one sees the tenant it names, or all.
   */
  async list(ctx: RequestContext, rawQuery: unknown): Promise<{ work_units: WorkUnitRecord[]; next_continuation_token: string | null }> {
    requirePermission(ctx.principal, 'work_units:read');
    const q = validate(WorkUnitListQuery, rawQuery ?? {});
    const tenant = await this.#deps.tenants.filter(ctx, q.tenant, 'work_units.list.tenant');
    const from = q.from === undefined ? undefined : normaliseTimestamp(q.from, 'from');
    const to = q.to === undefined ? undefined : normaliseTimestamp(q.to, 'to');
    if (from !== undefined && to !== undefined && from >= to) throw new SvcError('invalid_request', '`from` must be earlier than `to`', { details: { param: 'from' } });
    const limit = q.limit ?? DEFAULT_LIST_LIMIT;
    const after = q.continuation_token === undefined ? undefined : decodeContinuationToken(q.continuation_token, tenant);
    // One row more than the page tells whether another page exists (no empty last page).
    const rows = await this.#deps.workUnits.list({ tenant, kind: q.kind, state: q.state, from, to, after, limit: limit + 1 });
    const page = rows.slice(0, limit);
    return { work_units: page, next_continuation_token: rows.length > limit ? encodeContinuationToken(page[page.length - 1]!.id, tenant) : null };
  }

  /** A work unit the caller may see; another tenant's unit is reported as not found. */
  async get(ctx: RequestContext, id: string): Promise<WorkUnitRecord> {
    requirePermission(ctx.principal, 'work_units:read');
    const wu = await this.#deps.workUnits.get(id);
    if (!wu || (ctx.principal.tenant !== undefined && wu.tenant !== ctx.principal.tenant)) {
      throw new SvcError('not_found', `work unit ${id} not found`, { workUnitId: id });
    }
    return wu;
  }
}
