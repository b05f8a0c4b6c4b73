/**
 * Manifest export and import: a self-contained JSON document for migration,
 * audit and disaster recovery (format in docs/manifests.md).
 *
 * - `manifests`: the full manifests of the tenant (chunk lists included);
 * - `ledger`: the tenant's ledger events, with their chain hashes, so an
 *   auditor can match them against the source ledger;
 * - `chunks` (optional): every referenced chunk in its stored form.
 *
 * Import restores manifests (skipping ids that exist) and chunks — each chunk
 * is decoded and checked against its id before it is written, and one that
 * does not match is rejected (reported, never stored) — then records
 * one `manifests.imported` ledger event carrying the digest of the imported
 * ledger slice. The source events themselves are not re-chained into the
 * destination ledger: their hashes belong to the source chain.
 *
 * Exports are built in memory; {@link MAX_EXPORT_CHUNK_BYTES} bounds the chunk
 * payload (export without chunks and copy the chunk directory for more).
 */
import { decodeBase64Strict } from '../../core/base64.ts';
import { canonicalSha256 } from '../../core/hashing.ts';
import { requirePermission } from '../auth/principal.ts';
import type { TenantGuard } from '../auth/tenant-guard.ts';
import { CHUNK_CODECS, type ChunkCodec, decodeChunk } from '../chunking/chunk-codec.ts';
import { chunkIdOf, isChunkId } from '../chunk-store/chunk-id.ts';
import { parseChunkScope } from '../chunk-store/chunk-scope.ts';
import type { ChunkStore } from '../chunk-store/chunk-store.ts';
import type { RequestContext } from '../context.ts';
import { SvcError } from '../errors.ts';
import type { LedgerAppender } from '../ledger/appender.ts';
import type { LedgerRow } from '../ledger/event.ts';
import type { LedgerRepository } from '../store/repositories/ledger.ts';
import type { ManifestRepository } from '../store/repositories/manifests.ts';
import { validate } from '../validation.ts';
import { Type, type Static } from 'typebox';
import type { ByteManifest } from './manifest.ts';
import { MANIFEST_SCHEMA_VERSION } from './manifest.ts';
import { ManifestReadError, readManifestDocument } from './manifest-reader.ts';

export const EXPORT_FORMAT = 'svc.manifest-export';
export const EXPORT_VERSION = 1;
export const MAX_EXPORT_CHUNK_BYTES = 512 * 1024 * 1024;

export const ExportRequest = Type.Object(
  {
    tenant: Type.Optional(Type.String({ minLength: 1, maxLength: 128 })),
    include_chunks: Type.Optional(Type.Boolean({ default: false })),
    include_ledger: Type.Optional(Type.Boolean({ default: true })),
  },
  { additionalProperties: false },
);
export type ExportRequest = Static<typeof ExportRequest>;

export interface ExportedChunk {
  scope: string;
  id: string;
  codec: ChunkCodec;
  data_base64: string;
}

export interface ManifestExport {
  format: typeof EXPORT_FORMAT;
  version: number;
  exported_at: string;
  tenant: string | null;
  manifests: ByteManifest[];
  ledger: { events: LedgerRow[]; digest: string } | null;
  chunks: ExportedChunk[] | null;
}

export interface ImportReport {
  manifests_imported: number;
  manifests_skipped: number;
  chunks_written: number;
  chunks_present: number;
  /** Chunks whose bytes did not match their id (not written). */
  chunks_rejected: string[];
  ledger_events_in_export: number;
}

export interface ManifestExporterDeps {
  manifests: ManifestRepository;
  ledgerRepo: LedgerRepository;
  ledger: LedgerAppender;
  chunks: ChunkStore;
  tenants: TenantGuard;
}

const PAGE = 500;

export class ManifestExporter {
  readonly #deps: ManifestExporterDeps;
  constructor(deps: ManifestExporterDeps) {
    this.#deps = deps;
  }

  async export(ctx: RequestContext, input: unknown, onProgress?: (manifests: number) => void): Promise<ManifestExport> {
    requirePermission(ctx.principal, 'manifests:export');
    const req = validate(ExportRequest, input ?? {});
    const tenant = await this.#deps.tenants.filter(ctx, req.tenant, 'manifests.export.tenant');
    const manifests: ByteManifest[] = [];
    for (let after = ''; ; ) {
      const page = await this.#deps.manifests.page(tenant, after, PAGE);
      manifests.push(...page);
      onProgress?.(manifests.length);
      if (page.length < PAGE) break;
      after = page[page.length - 1]!.manifest_id;
    }
    const doc: ManifestExport = {
      format: EXPORT_FORMAT,
      version: EXPORT_VERSION,
      exported_at: new Date().toISOString(),
      tenant: tenant ?? null,
      manifests,
      ledger: req.include_ledger === false ? null : await this.#ledgerSlice(tenant),
      chunks: req.include_chunks ? await this.#chunksOf(manifests) : null,
    };
    await this.#deps.ledger.append({
      type: 'manifests.exported',
      tenant: tenant ?? null,
      actor: ctx.principal.actor,
      trace_id: ctx.traceId,
      payload: { manifests: manifests.length, include_chunks: doc.chunks !== null, chunks: doc.chunks?.length ?? 0, ledger_events: doc.ledger?.events.length ?? 0 },
    });
    return doc;
  }

  async import(ctx: RequestContext, input: unknown): Promise<ImportReport> {
    requirePermission(ctx.principal, 'manifests:export');
    const doc = parseExport(input);
    for (const m of doc.manifests) await this.#deps.tenants.resolve(ctx, m.tenant, 'manifests.import.tenant');
    const report: ImportReport = { manifests_imported: 0, manifests_skipped: 0, chunks_written: 0, chunks_present: 0, chunks_rejected: [], ledger_events_in_export: doc.ledger?.events.length ?? 0 };
    for (const c of doc.chunks ?? []) {
      const stored = decodeBase64Strict(c.data_base64);
      const raw = stored ? await decodeChunk(c.codec, stored).catch(() => undefined) : undefined;
      if (!stored || !raw || chunkIdOf(raw) !== c.id) {
        // Never let damaged bytes into the store; the manifests that need the
        // chunk will fail rehydration (and be quarantined) instead of lying.
        report.chunks_rejected.push(c.id);
        continue;
      }
      const { created } = await this.#deps.chunks.put(parseChunkScope(c.scope), c.id, c.codec, stored);
      if (created) report.chunks_written++;
      else report.chunks_present++;
    }
    await this.#deps.chunks.flush();
    for (const m of doc.manifests) {
      if (await this.#deps.manifests.get(m.manifest_id)) {
        report.manifests_skipped++;
        continue;
      }
      await this.#deps.manifests.insert(m);
      report.manifests_imported++;
    }
    await this.#deps.ledger.append({
      type: 'manifests.imported',
      tenant: doc.tenant,
      actor: ctx.principal.actor,
      trace_id: ctx.traceId,
      payload: { ...report, source_exported_at: doc.exported_at, source_ledger_digest: doc.ledger?.digest ?? null },
    });
    return report;
  }

  async #ledgerSlice(tenant: string | undefined): Promise<{ events: LedgerRow[]; digest: string }> {
    const events: LedgerRow[] = [];
    for (let afterSeq = 0; ; ) {
      const page = await this.#deps.ledgerRepo.query({ tenant, afterSeq, limit: 5000 });
      events.push(...page);
      if (page.length < 5000) break;
      afterSeq = Number(page[page.length - 1]!.seq);
    }
    return { events, digest: canonicalSha256(events.map((e) => e.hash)) };
  }

  async #chunksOf(manifests: ByteManifest[]): Promise<ExportedChunk[]> {
    const seen = new Set<string>();
    const out: ExportedChunk[] = [];
    let bytes = 0;
    for (const m of manifests) {
      const scope = parseChunkScope(m.chunk_scope);
      for (const c of m.chunks) {
        const key = `${scope}/${c.id}/${c.codec}`;
        if (seen.has(key)) continue;
        seen.add(key);
        bytes += c.stored_length;
        if (bytes > MAX_EXPORT_CHUNK_BYTES) {
          throw new SvcError('payload_too_large', `an export with chunks is limited to ${MAX_EXPORT_CHUNK_BYTES} bytes of chunk data; export without chunks and copy the chunk directory`);
        }
        const stored = await this.#deps.chunks.readStored(scope, c.id, c.codec);
        out.push({ scope, id: c.id, codec: c.codec, data_base64: Buffer.from(stored).toString('base64') });
      }
    }
    return out;
  }
}

function checkScope(value: unknown): void {
  try {
    parseChunkScope(String(value));
  } catch {
    throw new SvcError('invalid_request', 'export names an invalid chunk scope');
  }
}

/** Structural checks of an export before anything is written. */
function parseExport(input: unknown): ManifestExport {
  const doc = input as Partial<ManifestExport> | null;
  if (!doc || typeof doc !== 'object' || doc.format !== EXPORT_FORMAT || doc.version !== EXPORT_VERSION || !Array.isArray(doc.manifests)) {
    throw new SvcError('invalid_request', `not an export of format ${EXPORT_FORMAT} version ${EXPORT_VERSION}`);
  }
  for (const [i, raw] of doc.manifests.entries()) {
    // Every schema version this build reads is upgraded to the current shape here (manifest-reader.ts).
    let m: ByteManifest;
    try {
      m = readManifestDocument(raw);
    } catch (err) {
      if (!(err instanceof ManifestReadError)) throw err;
      throw new SvcError('invalid_request', `export holds a manifest this version cannot read: ${err.message}`, { details: { index: i, reason: err.reason } });
    }
    // A list digest in an export is not taken on trust: with it, a whole rehydration would not hash the bytes
    // against sha256 (decision 178). Imported manifests verify their first whole reads as a whole.
    const { chunk_list_sha256: _untrusted, ...imported } = m;
    doc.manifests[i] = imported;
    checkScope(m.chunk_scope);
    for (const c of m.chunks) {
      if (!isChunkId(c.id) || !CHUNK_CODECS.includes(c.codec)) throw new SvcError('invalid_request', `manifest ${m.manifest_id} lists an invalid chunk`);
    }
  }
  for (const c of doc.chunks ?? []) {
    if (!isChunkId(c.id) || !CHUNK_CODECS.includes(c.codec) || typeof c.data_base64 !== 'string') throw new SvcError('invalid_request', 'export holds an invalid chunk entry');
    checkScope(c.scope);
  }
  return doc as ManifestExport;
}
