/**
 * The stream adapter: append-only JSONL / NDJSON streams as segments.
 *
 * - Append: the body is either new records or the whole stream again (a
 *   growing log file re-sent). The part the stream already holds is found by
 *   segment digests (`alreadyStored`) and skipped; only the new tail becomes
 *   a segment, stored exactly through the object gateway at
 *   `<bucket>/<stream>/<seq>.ndjson`. Nothing new → no segment, no work unit.
 * - Read by time range: only segments whose [min_ts, max_ts] overlaps the
 *   range (or that hold untimed records) are rehydrated; records are filtered
 *   by their own time. Every segment read is marked read.
 * - Unused logs: segments never read back (a data-quality finding).
 */
import { sha256Hex } from '../../../core/hashing.ts';
import { newId } from '../../../core/ids.ts';
import { requirePermission } from '../../auth/principal.ts';
import type { TenantGuard } from '../../auth/tenant-guard.ts';
import type { RequestContext } from '../../context.ts';
import { SvcError } from '../../errors.ts';
import type { ObjectGateway } from '../../objects/object-gateway.ts';
import type { AdapterRecord, AdapterRecordRepository } from '../../store/repositories/adapter-records.ts';
import { validate } from '../../validation.ts';
import type { AdapterRegistry } from '../adapter-registry.ts';
import { StreamAppendRequest, StreamReadRequest, StreamUnusedRequest, TenantOnlyRequest } from '../adapter-schemas.ts';
import { decodeAdapterBody } from '../decode-body.ts';
import { readAll } from '../read-all.ts';
import { DEFAULT_TIME_FIELDS, type SegmentFacts, alreadyStored, recordTime, records, segmentFacts } from './ndjson-segment.ts';

export const STREAM = 'stream';
const KIND = 'stream_segment';

export interface StreamSegmentFacts extends SegmentFacts {
  bucket: string;
  key: string;
  /** Byte offset of the segment in the stream. */
  offset: number;
  time_fields: string[];
}

export interface StreamDeps {
  registry: AdapterRegistry;
  records: AdapterRecordRepository;
  gateway: ObjectGateway;
  tenants: TenantGuard;
  maxBodyBytes: number;
  onAlreadyStored?: (bytes: number) => void;
}

const segmentView = (r: AdapterRecord<StreamSegmentFacts>) => ({
  stream: r.subject,
  segment: r.seq,
  key: r.facts.key,
  offset: r.facts.offset,
  bytes: r.bytes,
  records: r.facts.records,
  min_ts: r.facts.min_ts,
  max_ts: r.facts.max_ts,
  manifest_id: r.manifest_id,
  created_at: r.created_at,
  last_read_at: r.last_read_at,
});

export class StreamAdapter {
  readonly #d: StreamDeps;
  constructor(deps: StreamDeps) {
    this.#d = deps;
  }

  async append(ctx: RequestContext, raw: unknown) {
    requirePermission(ctx.principal, 'work_units:write');
    this.#d.registry.require(STREAM);
    const input = validate(StreamAppendRequest, raw);
    if ((input.body_text === undefined) === (input.body_base64 === undefined)) throw new SvcError('invalid_request', 'send exactly one of body_text and body_base64', { details: { field: 'body_text|body_base64' } });
    const tenant = await this.#d.tenants.resolve(ctx, input.tenant, 'adapter.tenant');
    const body = input.body_text !== undefined ? new TextEncoder().encode(input.body_text) : decodeAdapterBody(input.body_base64!, this.#d.maxBodyBytes);
    if (body.byteLength > this.#d.maxBodyBytes) throw new SvcError('payload_too_large', `the body is larger than adapters.max_body_bytes (${this.#d.maxBodyBytes})`);
    const existing = await this.#d.records.ofSubject<StreamSegmentFacts>(tenant, STREAM, KIND, input.stream);
    if (existing.length > 0 && existing[0]!.facts.bucket !== input.bucket) throw new SvcError('conflict', `stream ${input.stream} lives in another bucket`);
    const skip = alreadyStored(body, existing.map((r) => ({ offset: r.facts.offset, bytes: r.bytes, sha256: r.sha256! })));
    const tail = body.subarray(skip);
    const streamBytes = existing.reduce((n, r) => n + r.bytes, 0);
    this.#d.onAlreadyStored?.(skip);
    if (tail.byteLength === 0) return { stream: input.stream, appended: null, bytes_received: body.byteLength, bytes_already_stored: skip, stream_bytes: streamBytes, segments: existing.length };
    const timeFields = input.time_fields ?? [...DEFAULT_TIME_FIELDS];
    const facts = segmentFacts(tail, timeFields); // before storing: a bad line stores nothing
    const seq = (existing.at(-1)?.seq ?? 0) + 1;
    const sha256 = sha256Hex(tail);
    // The digest in the key: two racing appends that computed the same segment number never overwrite each
    // other's object (the loser's insert is refused below and its object is left unrecorded).
    const key = `${input.stream}/${String(seq).padStart(10, '0')}-${sha256.slice(0, 16)}.ndjson`;
    const stored = await this.#d.gateway.storeObject(ctx, {
      tenant,
      bucket: input.bucket,
      key,
      mode: input.mode,
      contentType: 'application/x-ndjson',
      size: tail.byteLength,
      sha256,
      source: (async function* () {
        yield tail;
      })(),
    });
    const record: AdapterRecord<StreamSegmentFacts> = {
      id: newId('adr'),
      tenant,
      adapter: STREAM,
      kind: KIND,
      subject: input.stream,
      seq,
      manifest_id: stored.manifest_id,
      sha256,
      bytes: tail.byteLength,
      fingerprint: null,
      facts: { ...facts, bucket: input.bucket, key, offset: streamBytes, time_fields: timeFields },
      created_at: new Date().toISOString(),
      last_read_at: null,
    };
    // A concurrent append took this segment number: the client retries and its re-sent prefix is skipped then.
    if (!(await this.#d.records.insert(record))) throw new SvcError('conflict', 'another append to this stream won the race; retry');
    return {
      stream: input.stream,
      appended: segmentView(record),
      work_unit_id: stored.work_unit_id,
      bytes_received: body.byteLength,
      bytes_already_stored: skip,
      bytes_stored: stored.details.bytes_stored,
      stream_bytes: streamBytes + tail.byteLength,
      segments: existing.length + 1,
    };
  }

  async read(ctx: RequestContext, raw: unknown) {
    requirePermission(ctx.principal, 'work_units:read');
    this.#d.registry.require(STREAM);
    const input = validate(StreamReadRequest, raw);
    const tenant = await this.#d.tenants.resolve(ctx, input.tenant, 'adapter.tenant');
    const from = input.from ? Date.parse(input.from) : -Infinity;
    const to = input.to ? Date.parse(input.to) : Infinity;
    if (from > to) throw new SvcError('invalid_request', 'from is after to', { details: { field: 'from' } });
    const limit = input.limit ?? 1000;
    const segments = await this.#d.records.ofSubject<StreamSegmentFacts>(tenant, STREAM, KIND, input.stream);
    if (segments.length === 0) throw new SvcError('not_found', 'no such stream');
    const overlapping = segments.filter((s) => s.facts.untimed > 0 || (s.facts.min_ts !== null && Date.parse(s.facts.min_ts) <= to && Date.parse(s.facts.max_ts!) >= from));
    const out: Record<string, unknown>[] = [];
    const read: string[] = [];
    let truncated = false;
    for (const s of overlapping) {
      if (out.length >= limit) {
        truncated = true;
        break;
      }
      const obj = await this.#d.gateway.get(ctx, { tenant, bucket: s.facts.bucket, key: s.facts.key });
      if (obj.info.manifest_id !== s.manifest_id) throw new SvcError('conflict', `segment ${s.seq} of the stream was overwritten through the object gateway`);
      const bytes = await readAll(obj.rehydration.stream, Math.max(obj.rehydration.size, 1));
      read.push(s.id);
      for (const { record } of records(bytes)) {
        const t = recordTime(record, s.facts.time_fields);
        if (t !== undefined && (t < from || t > to)) continue;
        if (t === undefined && (input.from || input.to)) continue;
        if (out.length >= limit) {
          truncated = true;
          break;
        }
        out.push(record);
      }
    }
    await this.#d.records.markRead(read, new Date().toISOString());
    return { stream: input.stream, records: out, truncated, segments_read: read.length, segments_skipped: segments.length - read.length };
  }

  async streams(ctx: RequestContext, raw: unknown) {
    requirePermission(ctx.principal, 'work_units:read');
    this.#d.registry.require(STREAM);
    const input = validate(TenantOnlyRequest, raw);
    const tenant = await this.#d.tenants.resolve(ctx, input.tenant, 'adapter.tenant');
    const latest = await this.#d.records.latestPerSubject<StreamSegmentFacts>(tenant, STREAM, KIND, input.limit ?? 100);
    return { streams: latest.map((r) => ({ stream: r.subject, segments: r.seq, bytes: r.facts.offset + r.bytes, last_max_ts: r.facts.max_ts, updated_at: r.created_at })) };
  }

  /** The "unused logs" signal: segments never read back, per stream, with the bytes they hold. */
  async unused(ctx: RequestContext, raw: unknown) {
    requirePermission(ctx.principal, 'work_units:read');
    this.#d.registry.require(STREAM);
    const input = validate(StreamUnusedRequest, raw);
    const tenant = await this.#d.tenants.resolve(ctx, input.tenant, 'adapter.tenant');
    const cutoff = Date.now() - (input.older_than_days ?? 0) * 86_400_000;
    const byStream = new Map<string, { stream: string; segments: number; bytes: number; oldest: string; records: number }>();
    let total = 0;
    let after = '';
    for (;;) {
      const page = await this.#d.records.page<StreamSegmentFacts>(tenant, STREAM, KIND, after, 500);
      for (const r of page) {
        if (r.last_read_at !== null || Date.parse(r.created_at) > cutoff) continue;
        const e = byStream.get(r.subject) ?? { stream: r.subject, segments: 0, bytes: 0, oldest: r.created_at, records: 0 };
        e.segments++;
        e.bytes += r.bytes;
        e.records += r.facts.records;
        if (r.created_at < e.oldest) e.oldest = r.created_at;
        byStream.set(r.subject, e);
        total += r.bytes;
      }
      if (page.length < 500) break;
      after = page[page.length - 1]!.id;
    }
    const unused = [...byStream.values()].sort((a, b) => b.bytes - a.bytes).slice(0, input.limit ?? 100);
    return { unused: unused.map((u) => ({ stream: u.stream, segments_never_read: u.segments, bytes_never_read: u.bytes, records_never_read: u.records, oldest_created_at: u.oldest })), bytes_never_read: total };
  }
}
