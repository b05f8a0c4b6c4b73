/**
 * svc.v1.ManifestService — the gRPC form of `/v1/manifests` (route
 * manifests.ts): get, list, explore, rehydration as a byte stream, release,
 * and export/import — the REST JSON document carried in byte pieces (server
 * streaming out, client streaming in) so no single message has to hold an
 * export with chunks.
 */
import type { ManifestServiceHandlers } from '../generated/svc/v1/ManifestService.ts';
import type { ManifestServiceRehydrateResponse } from '../generated/svc/v1/ManifestServiceRehydrateResponse.ts';
import { byteRangeBody, byteStreamInfo, writeBytes } from '../byte-stream.ts';
import { toManifestMessage } from '../mapping/record-messages.ts';
import { optional, restBody } from '../mapping/rest-body.ts';
import { type GrpcRuntime, type MessageSink, clientStream, serverStream, unary } from '../rpc-handlers.ts';
import { SvcError } from '../../errors.ts';
import type { ManifestServiceExportResponse } from '../generated/svc/v1/ManifestServiceExportResponse.ts';
import type { ManifestServiceImportRequest__Output } from '../generated/svc/v1/ManifestServiceImportRequest.ts';
import { MAX_DATA_MESSAGE_BYTES } from '../byte-stream.ts';
import { collectData, jsonResult } from '../mapping/json-result.ts';

/** The largest import document, as the REST import route's body limit. */
export const IMPORT_DOCUMENT_LIMIT = 768 * 1024 * 1024;

export function manifestService(rt: GrpcRuntime): ManifestServiceHandlers {
  const manifests = rt.app.objects.manifests;
  return {
    Get: unary(rt, 'ManifestService/Get', async (ctx, req) => ({ manifest: toManifestMessage(await manifests.getAny(ctx, req.manifest_id ?? '')) })),

    List: unary(rt, 'ManifestService/List', async (ctx, req) => {
      const page = await manifests.list(
        ctx,
        restBody({
          tenant: req.tenant,
          logical_ref: req.logical_ref,
          state: req.state,
          include_tombstoned: req.include_tombstoned,
          redacted: req.redacted,
          cursor: req.cursor,
          limit: req.limit,
        }),
      );
      return { manifests: page.manifests.map(toManifestMessage), next_cursor: optional(page.next_cursor) };
    }),

    Explore: unary(rt, 'ManifestService/Explore', async (ctx, req) => {
      const r = await manifests.explore(ctx, req.tenant || undefined);
      return {
        tenant: optional(r.tenant),
        totals: r.totals,
        by_kind: r.by_kind,
        by_contract: r.by_contract,
        by_state: r.by_state,
        rows: r.rows.map(toManifestMessage),
      };
    }),

    Rehydrate: serverStream(rt, 'ManifestService/Rehydrate', async (ctx, req, sink: MessageSink<ManifestServiceRehydrateResponse>) => {
      const { manifest, rehydration } = await manifests.rehydrate(ctx, req.manifest_id ?? '', restBody({ range: byteRangeBody(req.range) }));
      await sink.write({ info: byteStreamInfo(rehydration, manifest) });
      await writeBytes(sink, rehydration, (data) => ({ data }));
    }),

    Release: unary(rt, 'ManifestService/Release', async (ctx, req) => ({ result: jsonResult(await manifests.release(ctx, req.manifest_id ?? '')) })),

    Export: serverStream(rt, 'ManifestService/Export', async (ctx, req, sink: MessageSink<ManifestServiceExportResponse>) => {
      const document = await rt.app.objects.exporter.export(ctx, restBody({ tenant: req.tenant, include_chunks: req.include_chunks, include_ledger: req.include_ledger }));
      const bytes = Buffer.from(JSON.stringify(document), 'utf8');
      for (let offset = 0; offset < bytes.byteLength; offset += MAX_DATA_MESSAGE_BYTES) await sink.write({ data: bytes.subarray(offset, offset + MAX_DATA_MESSAGE_BYTES) });
    }),

    Import: clientStream(rt, 'ManifestService/Import', async (ctx, messages: AsyncIterable<ManifestServiceImportRequest__Output>) => {
      const bytes = await collectData(messages, IMPORT_DOCUMENT_LIMIT, 'the import document');
      let document: unknown;
      try {
        document = JSON.parse(bytes.toString('utf8'));
      } catch {
        throw new SvcError('invalid_request', 'the import document is not JSON (send the Export stream\'s bytes, in order)');
      }
      const report = await rt.app.operations.manifestImport(ctx, document);
      return { work_unit_id: report.work_unit_id, result: jsonResult(report) };
    }),
  };
}
