/**
 * svc.v1.ObjectGatewayService — the gRPC form of `/v1/s3/objects/*` (route
 * objects.ts). Get streams the object (or, with `range`, a byte range) after
 * one info message; put takes the body as text or raw bytes. Multipart
 * (`/v1/s3/multipart/*`): UploadPart is client streaming — a `part` header,
 * then the bytes in any number of `data` messages — and hands the domain the
 * same part REST would (size capped at `multipart.max_part_bytes` while reading).
 */
import type { ObjectInfo } from '../../objects/object-gateway.ts';
import type { ObjectGatewayServiceGetResponse } from '../generated/svc/v1/ObjectGatewayServiceGetResponse.ts';
import type { ObjectGatewayServiceHandlers } from '../generated/svc/v1/ObjectGatewayService.ts';
import type { ObjectInfo as ObjectInfoMessage } from '../generated/svc/v1/ObjectInfo.ts';
import { byteRangeBody, byteStreamInfo, writeBytes } from '../byte-stream.ts';
import { modeCodec } from '../mapping/enums.ts';
import { toExecuteResultMessage } from '../mapping/plan-messages.ts';
import { optional, restBody } from '../mapping/rest-body.ts';
import { type GrpcRuntime, type MessageSink, clientStream, serverStream, unary } from '../rpc-handlers.ts';
import { SvcError } from '../../errors.ts';
import type { ObjectGatewayServiceUploadPartRequest__Output } from '../generated/svc/v1/ObjectGatewayServiceUploadPartRequest.ts';
import { collectData } from '../mapping/json-result.ts';

function objectInfoMessage(info: ObjectInfo): ObjectInfoMessage {
  return { ...info, content_type: optional(info.content_type) };
}

export function objectGatewayService(rt: GrpcRuntime): ObjectGatewayServiceHandlers {
  const { gateway, multipart } = rt.app.objects;
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

    CreateMultipartUpload: unary(rt, 'ObjectGatewayService/CreateMultipartUpload', async (ctx, req) =>
      multipart.create(ctx, restBody({ tenant: req.tenant, bucket: req.bucket, key: req.key, mode: modeCodec.toWord(req.mode), content_type: req.content_type })), hot),

    UploadPart: clientStream(rt, 'ObjectGatewayService/UploadPart', async (ctx, messages: AsyncIterable<ObjectGatewayServiceUploadPartRequest__Output>) => {
      const iterator = messages[Symbol.asyncIterator]();
      const first = await iterator.next();
      const header = first.done ? undefined : first.value.part;
      if (!header) throw new SvcError('invalid_request', 'the first UploadPart message must be `part` (upload_id, part_number), then `data` messages', { details: { field: 'part' } });
      const rest = { [Symbol.asyncIterator]: () => iterator };
      const bytes = await collectData(rest, rt.app.config.multipart.max_part_bytes, 'the part');
      return multipart.uploadPart(ctx, restBody({ upload_id: header.upload_id, part_number: header.part_number, sha256: header.sha256, body_base64: bytes.toString('base64') }));
    }, hot),

    CompleteMultipartUpload: unary(rt, 'ObjectGatewayService/CompleteMultipartUpload', async (ctx, req) => {
      const r = await multipart.complete(ctx, restBody({ upload_id: req.upload_id, parts: (req.parts ?? []).map((p) => ({ part_number: p.part_number, sha256: p.sha256 })) }));
      return { result: toExecuteResultMessage(r), bucket: r.bucket, key: r.key, size: r.size, etag: r.etag, upload_id: r.upload_id, part_count: r.part_count };
    }, hot),

    AbortMultipartUpload: unary(rt, 'ObjectGatewayService/AbortMultipartUpload', async (ctx, req) => multipart.abort(ctx, restBody({ upload_id: req.upload_id })), hot),

    Delete: unary(rt, 'ObjectGatewayService/Delete', async (ctx, req) => rt.app.operations.objectDelete(ctx, restBody({ tenant: req.tenant, bucket: req.bucket, key: req.key })), hot),
  };
}
