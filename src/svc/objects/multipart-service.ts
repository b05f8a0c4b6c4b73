/**
 * Multipart upload: create → part (any order, re-uploads replace) →
 * complete | abort.
 *
 * - The server computes every part's SHA-256 and returns it; a client that
 *   sends its own `sha256` with a part has it checked before anything is
 *   stored.
 * - Completion names the parts in ascending order with the digests the
 *   server returned. Each must exist and match; every part but the last must
 *   be at least `multipart.min_part_bytes`; at most `multipart.max_parts`.
 * - Completion streams the parts, re-hashing each against its recorded
 *   digest while it goes, through the same exact executor as a put — so the
 *   object is never assembled in memory — and returns the manifest id.
 */
import { createHash } from 'node:crypto';
import { sha256Hex } from '../../core/hashing.ts';
import { newId } from '../../core/ids.ts';
import { requirePermission } from '../auth/principal.ts';
import type { TenantGuard } from '../auth/tenant-guard.ts';
import type { RequestContext } from '../context.ts';
import { SvcError } from '../errors.ts';
import type { LedgerAppender } from '../ledger/appender.ts';
import type { UploadPartRow, UploadRepository, UploadRow } from '../store/repositories/uploads.ts';
import { validate } from '../validation.ts';
import type { ObjectGateway, PutObjectResult } from './object-gateway.ts';
import { type DeclaredBody, assertDeclaredDigest, readDeclared } from '../exact-bytes/declared-body.ts';
import { AbortMultipartRequest, CompleteMultipartRequest, CreateMultipartRequest, RawUploadPartQuery, UploadPartRequest } from './object-schemas.ts';
import type { PartStore } from './part-store.ts';
import { decodeBody } from './request-body.ts';

export interface MultipartLimits {
  min_part_bytes: number;
  max_parts: number;
  max_part_bytes: number;
}

/** What a part upload answers: the part's size and server-computed digest, to name at completion. */
export interface PartResult {
  upload_id: string;
  part_number: number;
  size: number;
  sha256: string;
}

export interface MultipartDeps {
  uploads: UploadRepository;
  parts: PartStore;
  gateway: ObjectGateway;
  ledger: LedgerAppender;
  tenants: TenantGuard;
  limits: MultipartLimits;
}

export class MultipartService {
  readonly #deps: MultipartDeps;
  constructor(deps: MultipartDeps) {
    this.#deps = deps;
  }

  async create(ctx: RequestContext, input: unknown): Promise<{ upload_id: string; bucket: string; key: string; min_part_bytes: number; max_parts: number; max_part_bytes: number }> {
    requirePermission(ctx.principal, 'work_units:write');
    const body = validate(CreateMultipartRequest, input);
    const tenant = await this.#deps.tenants.resolve(ctx, body.tenant, 'object.tenant');
    const now = new Date().toISOString();
    const upload: UploadRow = {
      id: newId('up'),
      tenant,
      bucket: body.bucket,
      object_key: body.key,
      state: 'open',
      mode: body.mode ?? null,
      content_type: body.content_type ?? null,
      created_by: ctx.principal.actor,
      trace_id: ctx.traceId,
      manifest_id: null,
      work_unit_id: null,
      created_at: now,
      updated_at: now,
    };
    await this.#deps.uploads.insert(upload);
    await this.#audit(ctx, 'object.multipart.create', upload, {});
    const { min_part_bytes, max_parts, max_part_bytes } = this.#deps.limits;
    return { upload_id: upload.id, bucket: upload.bucket, key: upload.object_key, min_part_bytes, max_parts, max_part_bytes };
  }

  async uploadPart(ctx: RequestContext, input: unknown): Promise<PartResult> {
    requirePermission(ctx.principal, 'work_units:write');
    const body = validate(UploadPartRequest, input);
    const bytes = decodeBody(body);
    const upload = await this.#open(ctx, body.upload_id);
    this.#checkPart(body.part_number, bytes.byteLength);
    const sha256 = sha256Hex(bytes);
    if (body.sha256 !== undefined && body.sha256 !== sha256) {
      throw new SvcError('invalid_request', `part ${body.part_number} does not match the sha256 sent with it`, {
        details: { part_number: body.part_number, expected_sha256: body.sha256, actual_sha256: sha256 },
      });
    }
    await this.#deps.parts.write(upload.id, body.part_number, bytes);
    return this.#recordPart(ctx, upload, body.part_number, bytes.byteLength, sha256);
  }

  /**
   * `PUT /v1/s3/multipart/part?upload_id=&part_number=` with the part as the raw body (S3's UploadPart): streamed
   * to the part store while it is hashed; a body that does not match its declared length or digest stores nothing
   * and leaves an earlier version of the part in place (decision 112).
   */
  async uploadPartRaw(ctx: RequestContext, query: unknown, body: DeclaredBody): Promise<PartResult> {
    requirePermission(ctx.principal, 'work_units:write');
    const q = validate(RawUploadPartQuery, query, 'invalid_request', 'query parameters');
    const partNumber = Number(q.part_number);
    const upload = await this.#open(ctx, q.upload_id);
    // A part whose length comes in its footer streams under the part limit and is checked against it as it arrives.
    this.#checkPart(partNumber, body.length ?? 0);
    const bounded: DeclaredBody = body.length === undefined ? { ...body, maxLength: Math.min(body.maxLength ?? Infinity, this.#deps.limits.max_part_bytes) } : body;
    let sha256 = '';
    let size = 0;
    const declared = readDeclared(bounded);
    await this.#deps.parts.writeStream(upload.id, partNumber, (async function* () {
      const hash = createHash('sha256');
      for await (const piece of declared) {
        hash.update(piece);
        size += piece.byteLength;
        yield piece;
      }
      // Checked before the store's last step (the rename or the PUT): a wrong digest fails the write itself.
      sha256 = hash.digest('hex');
      assertDeclaredDigest(body, sha256);
    })());
    return this.#recordPart(ctx, upload, partNumber, size, sha256);
  }

  #checkPart(partNumber: number, size: number): void {
    const { max_parts, max_part_bytes } = this.#deps.limits;
    if (partNumber > max_parts) throw new SvcError('invalid_request', `part_number must be at most ${max_parts}`, { details: { field: 'part_number' } });
    if (size > max_part_bytes) throw new SvcError('payload_too_large', `a part may hold at most ${max_part_bytes} bytes`, { details: { limit_bytes: max_part_bytes } });
  }

  async #recordPart(ctx: RequestContext, upload: UploadRow, partNumber: number, size: number, sha256: string): Promise<PartResult> {
    const part: UploadPartRow = { upload_id: upload.id, part_number: partNumber, size, sha256, created_at: new Date().toISOString() };
    await this.#deps.uploads.putPart(part);
    await this.#audit(ctx, 'object.multipart.part', upload, { part_number: part.part_number, size: part.size, sha256 });
    return { upload_id: upload.id, part_number: part.part_number, size: part.size, sha256 };
  }

  async complete(ctx: RequestContext, input: unknown): Promise<PutObjectResult & { upload_id: string; part_count: number }> {
    requirePermission(ctx.principal, 'work_units:write');
    const body = validate(CompleteMultipartRequest, input);
    const upload = await this.#open(ctx, body.upload_id);
    const chosen = this.#checkCompletion(body.parts, await this.#deps.uploads.parts(upload.id));
    const size = chosen.reduce((n, p) => n + p.size, 0);
    if (!(await this.#deps.uploads.transition(upload.id, 'open', 'completing'))) {
      throw new SvcError('conflict', `upload ${upload.id} is being completed or was aborted concurrently`);
    }
    let result: PutObjectResult;
    try {
      result = await this.#deps.gateway.storeObject(ctx, {
        tenant: upload.tenant,
        bucket: upload.bucket,
        key: upload.object_key,
        mode: (upload.mode as 'observe' | 'enforce' | null) ?? undefined,
        contentType: upload.content_type,
        size,
        sha256: null,
        source: this.#verifiedParts(upload.id, chosen),
      });
    } catch (err) {
      // The parts are still there: the client may fix the cause and complete again.
      await this.#deps.uploads.transition(upload.id, 'completing', 'open');
      throw err;
    }
    await this.#deps.uploads.transition(upload.id, 'completing', 'completed', { manifest_id: result.manifest_id, work_unit_id: result.work_unit_id });
    await this.#deps.parts.discard(upload.id);
    await this.#audit(ctx, 'object.multipart.complete', upload, { part_count: chosen.length, size, manifest_id: result.manifest_id, sha256: result.output.sha256 }, result);
    return { ...result, upload_id: upload.id, part_count: chosen.length };
  }

  async abort(ctx: RequestContext, input: unknown): Promise<{ upload_id: string; state: 'aborted' }> {
    requirePermission(ctx.principal, 'work_units:write');
    const body = validate(AbortMultipartRequest, input);
    const upload = await this.#open(ctx, body.upload_id);
    if (!(await this.#deps.uploads.transition(upload.id, 'open', 'aborted'))) throw new SvcError('conflict', `upload ${upload.id} is no longer open`);
    await this.#deps.parts.discard(upload.id);
    await this.#audit(ctx, 'object.multipart.abort', upload, {});
    return { upload_id: upload.id, state: 'aborted' };
  }

  /**
   * Aborts open uploads untouched since `before` and discards their parts
   * (garbage collection; `gc.multipart_expiry_hours`). Each is an
   * `object.multipart.expired` ledger event. An upload that moves on meanwhile
   * (a part arrives, a completion starts) is left alone.
   * @returns the uploads expired (or that would be, with `dryRun`)
   */
  async expireAbandoned(ctx: RequestContext, before: string, options: { dryRun?: boolean; limit?: number } = {}): Promise<Array<{ upload_id: string; tenant: string; parts: number; bytes: number }>> {
    const out: Array<{ upload_id: string; tenant: string; parts: number; bytes: number }> = [];
    for (const upload of await this.#deps.uploads.openSince(before, options.limit ?? 10_000)) {
      const parts = await this.#deps.uploads.parts(upload.id);
      const bytes = parts.reduce((n, p) => n + p.size, 0);
      if (!options.dryRun) {
        if (!(await this.#deps.uploads.abortIfIdle(upload.id, before))) continue;
        await this.#deps.parts.discard(upload.id);
        await this.#audit(ctx, 'object.multipart.expired', upload, { parts: parts.length, bytes, last_activity_at: upload.updated_at });
      }
      out.push({ upload_id: upload.id, tenant: upload.tenant, parts: parts.length, bytes });
    }
    return out;
  }

  /** The stored parts named by a completion request, after checking order, presence, digests and sizes. */
  #checkCompletion(requested: CompleteMultipartRequest['parts'], stored: UploadPartRow[]): UploadPartRow[] {
    const { min_part_bytes, max_parts } = this.#deps.limits;
    if (requested.length > max_parts) throw new SvcError('invalid_request', `an object may have at most ${max_parts} parts`);
    const byNumber = new Map(stored.map((p) => [p.part_number, p]));
    const chosen: UploadPartRow[] = [];
    let previous = 0;
    for (const want of requested) {
      if (want.part_number <= previous) throw new SvcError('invalid_request', 'parts must be listed in ascending part_number order without repeats', { details: { part_number: want.part_number } });
      previous = want.part_number;
      const part = byNumber.get(want.part_number);
      if (!part) throw new SvcError('invalid_request', `part ${want.part_number} was not uploaded`, { details: { part_number: want.part_number, reason: 'missing_part' } });
      if (part.sha256 !== want.sha256) {
        throw new SvcError('invalid_request', `part ${want.part_number} does not have the sha256 given for it`, {
          details: { part_number: want.part_number, reason: 'digest_mismatch', expected_sha256: want.sha256, actual_sha256: part.sha256 },
        });
      }
      chosen.push(part);
    }
    chosen.slice(0, -1).forEach((p) => {
      if (p.size < min_part_bytes) {
        throw new SvcError('invalid_request', `part ${p.part_number} has ${p.size} bytes; every part but the last needs at least ${min_part_bytes}`, {
          details: { part_number: p.part_number, reason: 'part_too_small', min_part_bytes },
        });
      }
    });
    return chosen;
  }

  /** Streams the parts in order, re-hashing each; a part that changed on disk fails the completion. */
  async *#verifiedParts(uploadId: string, parts: UploadPartRow[]): AsyncGenerator<Uint8Array> {
    for (const part of parts) {
      const hash = createHash('sha256');
      let size = 0;
      for await (const piece of this.#deps.parts.read(uploadId, part.part_number)) {
        hash.update(piece);
        size += piece.length;
        yield piece;
      }
      const digest = hash.digest('hex');
      if (digest !== part.sha256 || size !== part.size) {
        throw new SvcError('contract_violation', `part ${part.part_number} changed since it was uploaded; upload it again`, {
          details: { part_number: part.part_number, reason: 'part_changed' },
        });
      }
    }
  }

  /** An open upload of the caller's tenant; others' uploads are reported as not found. */
  async #open(ctx: RequestContext, uploadId: string): Promise<UploadRow> {
    const upload = await this.#deps.uploads.get(uploadId);
    if (!upload || (ctx.principal.tenant !== undefined && upload.tenant !== ctx.principal.tenant)) {
      throw new SvcError('not_found', `upload ${uploadId} not found`);
    }
    if (upload.state !== 'open') throw new SvcError('conflict', `upload ${uploadId} is ${upload.state}`, { details: { state: upload.state } });
    return upload;
  }

  async #audit(ctx: RequestContext, type: string, upload: UploadRow, payload: Record<string, unknown>, result?: { work_unit_id: string; manifest_id: string }): Promise<void> {
    await this.#deps.ledger.append({
      type,
      tenant: upload.tenant,
      actor: ctx.principal.actor,
      work_unit_id: result?.work_unit_id ?? null,
      manifest_id: result?.manifest_id ?? null,
      trace_id: ctx.traceId,
      payload: { upload_id: upload.id, bucket: upload.bucket, key: upload.object_key, ...payload },
    });
  }
}
