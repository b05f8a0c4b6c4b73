/** The JSON object gateway: `/v1/s3/objects/*` and `/v1/s3/multipart/*`, all POST. */
import type { FastifyInstance } from 'fastify';
import type { SvcApp } from '../../app.ts';
import {
  AbortMultipartRequest,
  CompleteMultipartRequest,
  CreateMultipartRequest,
  ListObjectsRequest,
  ObjectRefRequest,
  PutObjectRequest,
  RangeObjectRequest,
  UploadPartRequest,
} from '../../objects/object-schemas.ts';
import type { ObjectRead } from '../../objects/object-gateway.ts';
import { sendBytes } from '../byte-response.ts';
import { setWorkUnitHeaders } from '../headers.ts';
import { ctx } from '../request-context.ts';
import { setRequestAttributes } from '../../observability/tracing.ts';

export async function objectRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  // The spec's `adapter` span attribute: the protocol adapter the request came through.
  server.addHook('preHandler', async () => setRequestAttributes({ adapter: 's3' }));
  const doc = { attachValidation: true } as const;
  const { gateway, multipart } = app.objects;
  const tags = ['objects'];
  // base64 grows 4/3; allow a maximal part plus JSON framing.
  const partBodyLimit = Math.ceil((app.config.multipart.max_part_bytes * 4) / 3) + 64 * 1024;

  const sendRead = (reply: Parameters<typeof sendBytes>[0], read: ObjectRead) => {
    setWorkUnitHeaders(reply, { workUnitId: read.info.work_unit_id, manifestId: read.info.manifest_id, contract: read.manifest.contract, mode: read.manifest.mode });
    return sendBytes(reply, read.rehydration, read.info.sha256);
  };

  server.post('/v1/s3/objects', { ...doc, schema: { tags, summary: 'Put an object (body_text or body_base64)', body: PutObjectRequest } }, async (request, reply) => {
    const result = await gateway.put(ctx(request), request.body);
    setWorkUnitHeaders(reply, { workUnitId: result.work_unit_id, manifestId: result.manifest_id, contract: result.contract, policyBundleId: result.policy_bundle_id, mode: result.mode });
    return reply.status(201).send(result);
  });

  server.post('/v1/s3/objects/head', { ...doc, schema: { tags, summary: 'Object metadata', body: ObjectRefRequest } }, async (request, reply) => {
    const info = await gateway.head(ctx(request), request.body);
    setWorkUnitHeaders(reply, { workUnitId: info.work_unit_id, manifestId: info.manifest_id });
    return info;
  });

  server.post('/v1/s3/objects/get', { ...doc, schema: { tags, summary: 'Object bytes (application/octet-stream)', body: ObjectRefRequest } }, async (request, reply) => sendRead(reply, await gateway.get(ctx(request), request.body, { borrowBuffers: true })));

  server.post('/v1/s3/objects/range', { ...doc, schema: { tags, summary: 'A byte range of an object (206, application/octet-stream)', body: RangeObjectRequest } }, async (request, reply) => sendRead(reply, await gateway.range(ctx(request), request.body, { borrowBuffers: true })));

  server.post('/v1/s3/objects/list', { ...doc, schema: { tags, summary: 'List objects by prefix (max_keys default 1000, continuation token)', body: ListObjectsRequest } }, async (request) => gateway.list(ctx(request), request.body));

  server.post('/v1/s3/objects/delete', { ...doc, schema: { tags, summary: 'Delete (tombstone) an object; denied unless policy allows', body: ObjectRefRequest } }, async (request, reply) => {
    const result = await app.operations.objectDelete(ctx(request), request.body);
    setWorkUnitHeaders(reply, { workUnitId: result.work_unit_id, manifestId: result.manifest_id, policyBundleId: result.policy_bundle_id });
    return result;
  });

  server.post('/v1/s3/multipart/create', { ...doc, schema: { tags, summary: 'Start a multipart upload', body: CreateMultipartRequest } }, async (request, reply) => reply.status(201).send(await multipart.create(ctx(request), request.body)));

  server.post('/v1/s3/multipart/part', { ...doc, bodyLimit: partBodyLimit, schema: { tags, summary: 'Upload one part; the response carries its server-computed sha256', body: UploadPartRequest } }, async (request) => multipart.uploadPart(ctx(request), request.body));

  server.post('/v1/s3/multipart/complete', { ...doc, schema: { tags, summary: 'Complete: re-verify every part and store the object through the exact executor', body: CompleteMultipartRequest } }, async (request, reply) => {
    const result = await multipart.complete(ctx(request), request.body);
    setWorkUnitHeaders(reply, { workUnitId: result.work_unit_id, manifestId: result.manifest_id, contract: result.contract, policyBundleId: result.policy_bundle_id, mode: result.mode });
    return result;
  });

  server.post('/v1/s3/multipart/abort', { ...doc, schema: { tags, summary: 'Abort a multipart upload and discard its parts', body: AbortMultipartRequest } }, async (request) => multipart.abort(ctx(request), request.body));
}
