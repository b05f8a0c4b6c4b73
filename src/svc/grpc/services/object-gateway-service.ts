/**
 * svc.v1.ObjectGatewayService — the gRPC form of `/v1/s3/objects/*` (route
 * objects.ts). Get streams the object (or, with `range`, a byte range) after
 * one info message; put takes the body as text or raw bytes.
 */
import type { ObjectInfo } from '../../objects/object-gateway.ts';
import type { ObjectGatewayServiceGetResponse } from '../generated/svc/v1/ObjectGatewayServiceGetResponse.ts';
import type { ObjectGatewayServiceHandlers } from '../generated/svc/v1/ObjectGatewayService.ts';
import type { ObjectInfo as ObjectInfoMessage } from '../generated/svc/v1/ObjectInfo.ts';
import { byteRangeBody, byteStreamInfo, writeBytes } from '../byte-stream.ts';
import { modeCodec } from '../mapping/enums.ts';
import { toExecuteResultMessage } from '../mapping/plan-messages.ts';
import { optional, restBody } from '../mapping/rest-body.ts';
import { type GrpcRuntime, type MessageSink, serverStream, unary } from '../rpc-handlers.ts';

function objectInfoMessage(info: ObjectInfo): ObjectInfoMessage {
  return { ...info, content_type: optional(info.content_type) };
}

export function objectGatewayService(rt: GrpcRuntime): ObjectGatewayServiceHandlers {
  const { gateway } = rt.app.objects;
  const hot = { guarded: true };
  return {
    Put: unary(rt, 'ObjectGatewayService/Put', async (ctx, req) => {
      const r = await gateway.put(
        ctx,
        restBody({
          tenant: req.tenant,
          bucket: req.bucket,
          key: req.key,
          body_text: req.body_text,
          body_base64: req.body_base64?.toString('base64'),
          mode: modeCodec.toWord(req.mode),
          content_type: req.content_type,
        }),
      );
      return { result: toExecuteResultMessage(r), bucket: r.bucket, key: r.key, size: r.size, etag: r.etag };
    }, hot),

    Head: unary(rt, 'ObjectGatewayService/Head', async (ctx, req) => ({
      object: objectInfoMessage(await gateway.head(ctx, restBody({ tenant: req.tenant, bucket: req.bucket, key: req.key }))),
    }), hot),

    Get: serverStream(rt, 'ObjectGatewayService/Get', async (ctx, req, sink: MessageSink<ObjectGatewayServiceGetResponse>) => {
      const ref = { tenant: req.tenant, bucket: req.bucket, key: req.key };
      const range = byteRangeBody(req.range);
      const read = range === undefined ? await gateway.get(ctx, restBody(ref)) : await gateway.range(ctx, restBody({ ...ref, range }));
      await sink.write({ info: { object: objectInfoMessage(read.info), stream: byteStreamInfo(read.rehydration, read.info) } });
      await writeBytes(sink, read.rehydration, (data) => ({ data }));
    }, hot),

    List: unary(rt, 'ObjectGatewayService/List', async (ctx, req) => {
      const r = await gateway.list(
        ctx,
        restBody({
          tenant: req.tenant,
          bucket: req.bucket,
          prefix: req.prefix,
          continuation_token: req.continuation_token,
          max_keys: req.max_keys,
          include_tombstoned: req.include_tombstoned,
        }),
      );
      return { ...r, objects: r.objects.map(objectInfoMessage), next_continuation_token: optional(r.next_continuation_token) };
    }, hot),

    Delete: unary(rt, 'ObjectGatewayService/Delete', async (ctx, req) => rt.app.operations.objectDelete(ctx, restBody({ tenant: req.tenant, bucket: req.bucket, key: req.key })), hot),
  };
}
