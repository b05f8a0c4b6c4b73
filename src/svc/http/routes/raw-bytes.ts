/**
 * The raw byte routes (docs/objects.md, decision 112): the bytes of an object
 * put, a multipart part or an inline byte_object execute as the request
 * body itself (`application/octet-stream`), streamed through hashing,
 * chunking and storage — no JSON, no base64, no buffering of the object.
 * The JSON envelope routes beside them are unchanged.
 *
 * - `PUT /v1/s3/objects?bucket=&key=` — S3's PutObject (the JSON put is `POST` on the same path)
 * - `PUT /v1/s3/multipart/part?upload_id=&part_number=` — S3's UploadPart
 * - `POST /v1/work-units/execute/raw?logical_ref=…` — inline execute
 *
 * Each takes `Content-Length` (required) and `X-SVC-Content-SHA256`
 * (optional); a body that does not match them is refused and stores nothing.
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { SvcApp } from '../../app.ts';
import { RawExecuteQuery } from '../../exact-bytes/raw-execute-query.ts';
import type { ExecuteResult } from '../../exact-bytes/exact-executor.ts';
import { RawPutObjectQuery, RawUploadPartQuery } from '../../objects/object-schemas.ts';
import { setRequestAttributes } from '../../observability/tracing.ts';
import { setWorkUnitHeaders } from '../headers.ts';
import { RawBodyHeaders, RawBodySchema, acceptRawBodies, declaredBodyOf } from '../raw-body.ts';
import { ctx } from '../request-context.ts';

function withHeaders<T extends ExecuteResult>(reply: FastifyReply, r: T): T {
  setWorkUnitHeaders(reply, { workUnitId: r.work_unit_id, manifestId: r.manifest_id, contract: r.contract, policyBundleId: r.policy_bundle_id, mode: r.mode });
  return r;
}

export async function rawByteRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  acceptRawBodies(server);
  const doc = { attachValidation: true } as const;
  const rawLimit = app.config.server.raw_body_limit_bytes;
  // Parts are held to multipart.max_part_bytes by the domain; this only keeps the transport's bound.
  const partLimit = app.config.multipart.max_part_bytes;
  const { gateway, multipart, execute } = app.objects;
  const schema = (summary: string, tags: string[], querystring: object) => ({ tags, summary, querystring, headers: RawBodyHeaders, body: RawBodySchema });

  server.put('/v1/s3/objects', { ...doc, schema: schema('Put an object: the raw bytes as the body (application/octet-stream), addressed by query; Content-Length and X-SVC-Content-SHA256 are checked', ['objects'], RawPutObjectQuery) }, async (request, reply) => {
    setRequestAttributes({ adapter: 's3' });
    const result = await gateway.putRaw(ctx(request), request.query, declaredBodyOf(request, rawLimit));
    return reply.status(201).send(withHeaders(reply, result));
  });

  server.put('/v1/s3/multipart/part', { ...doc, schema: schema('Upload one part as raw bytes (application/octet-stream); the response carries its server-computed sha256', ['objects'], RawUploadPartQuery) }, async (request) => {
    setRequestAttributes({ adapter: 's3' });
    return multipart.uploadPartRaw(ctx(request), request.query, declaredBodyOf(request, partLimit));
  });

  server.post('/v1/work-units/execute/raw', { ...doc, schema: schema('Create, plan and execute a byte_object work unit whose payload is the raw body (application/octet-stream); work unit fields in the query', ['work-units'], RawExecuteQuery) }, async (request, reply) =>
    withHeaders(reply, await execute.executeRaw(ctx(request), request.query, declaredBodyOf(request, rawLimit))),
  );
}
