/**
 * svc.v1.ManifestService — the gRPC form of `/v1/manifests` (route
 * manifests.ts): get, list, explore, and rehydration as a byte stream.
 */
import type { ManifestServiceHandlers } from '../generated/svc/v1/ManifestService.ts';
import type { ManifestServiceRehydrateResponse } from '../generated/svc/v1/ManifestServiceRehydrateResponse.ts';
import { byteRangeBody, byteStreamInfo, writeBytes } from '../byte-stream.ts';
import { toManifestMessage } from '../mapping/record-messages.ts';
import { optional, restBody } from '../mapping/rest-body.ts';
import { type GrpcRuntime, type MessageSink, serverStream, unary } from '../rpc-handlers.ts';

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
  };
}
