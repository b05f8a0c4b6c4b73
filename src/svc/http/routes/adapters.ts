/**
 * `/v1/adapters`: the workload adapters and their operations (docs/adapters.md).
 * Thin adapter over `app.adapters` (src/svc/adapters); every request names its
 * adapter in the `adapter` span attribute, carried by every span of the work
 * unit it creates.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type } from 'typebox';
import type { SvcApp } from '../../app.ts';
import { ADAPTER_NAME_PATTERN } from '../../adapters/adapter-registry.ts';
import { PLUGIN_ADAPTER_OPERATION_PATTERN } from '../../plugins/plugin-manifest.ts';
import { CheckpointPutRequest, RunRefRequest, TrainingRunCompleteRequest, TrainingRunSubmitRequest, StreamAppendRequest, StreamReadRequest, StreamUnusedRequest, TablePutRequest, TableRefRequest, TenantOnlyRequest } from '../../adapters/adapter-schemas.ts';
import { requirePermission } from '../../auth/principal.ts';
import { setRequestAttributes } from '../../observability/tracing.ts';
import { setWorkUnitHeaders } from '../headers.ts';
import { ctx } from '../request-context.ts';

export async function adapterRoutes(server: FastifyInstance, app: SvcApp): Promise<void> {
  const doc = { attachValidation: true } as const;
  const tags = ['adapters'];
  const { registry, lakehouse, stream, training } = app.adapters;
  const maxBody = app.config.adapters?.max_body_bytes ?? 64 * 1024 * 1024;
  const bodyLimit = Math.ceil((maxBody * 4) / 3) + 64 * 1024;
  /** Names the adapter on the request's spans, then hands the request context to the domain. */
  const via = (adapter: string, request: FastifyRequest) => {
    setRequestAttributes({ adapter });
    return ctx(request);
  };

  server.get('/v1/adapters', { schema: { tags, summary: 'Workload adapters with their status (work_units:read)' } }, async (request) => {
    requirePermission(ctx(request).principal, 'work_units:read');
    return { adapters: await registry.listAll() };
  });

  server.get(
    '/v1/adapters/:name',
    { schema: { tags, summary: 'One adapter with its status; unknown → not_found (using a missing or disabled adapter is adapter_unavailable)', params: Type.Object({ name: Type.String({ pattern: ADAPTER_NAME_PATTERN }) }) } },
    async (request) => {
      const { name } = request.params as { name: string };
      requirePermission(ctx(request).principal, 'work_units:read');
      return await registry.getAny(name);
    },
  );

  server.post('/v1/adapters/lakehouse/tables', { ...doc, bodyLimit, schema: { tags, summary: 'Store a Parquet table file as the next version of a table (exact bytes + logical facts)', body: TablePutRequest } }, async (request, reply) => {
    const r = await lakehouse.putTable(via('lakehouse', request), request.body);
    setWorkUnitHeaders(reply, { workUnitId: r.work_unit_id, manifestId: r.version.manifest_id });
    return reply.status(201).send(r);
  });
  server.post('/v1/adapters/lakehouse/tables/list', { ...doc, schema: { tags, summary: 'Latest version of each table', body: TenantOnlyRequest } }, async (request) => lakehouse.listTables(via('lakehouse', request), request.body));
  server.post('/v1/adapters/lakehouse/tables/versions', { ...doc, schema: { tags, summary: 'Every version of one table with its logical facts', body: TableRefRequest } }, async (request) => lakehouse.versions(via('lakehouse', request), request.body));
  server.post('/v1/adapters/lakehouse/duplicates', { ...doc, schema: { tags, summary: 'Datasets held by more than one table (same dataset digest)', body: TenantOnlyRequest } }, async (request) => lakehouse.duplicates(via('lakehouse', request), request.body));

  server.post('/v1/adapters/stream/append', { ...doc, bodyLimit, schema: { tags, summary: 'Append NDJSON records (or the whole stream again): only bytes the stream does not hold are stored', body: StreamAppendRequest } }, async (request, reply) => {
    const r = await stream.append(via('stream', request), request.body);
    if (r.appended) setWorkUnitHeaders(reply, { workUnitId: r.work_unit_id, manifestId: r.appended.manifest_id ?? undefined });
    return reply.status(r.appended ? 201 : 200).send(r);
  });
  server.post('/v1/adapters/stream/read', { ...doc, schema: { tags, summary: 'Records of a stream in a time range (only overlapping segments are read)', body: StreamReadRequest } }, async (request) => stream.read(via('stream', request), request.body));
  server.post('/v1/adapters/stream/streams/list', { ...doc, schema: { tags, summary: 'Streams with their segment count and size', body: TenantOnlyRequest } }, async (request) => stream.streams(via('stream', request), request.body));
  server.post('/v1/adapters/stream/unused', { ...doc, schema: { tags, summary: 'Unused logs: stream segments never read back', body: StreamUnusedRequest } }, async (request) => stream.unused(via('stream', request), request.body));

  server.post('/v1/adapters/training/checkpoints', { ...doc, bodyLimit, schema: { tags, summary: 'Store a safetensors checkpoint, chunked on tensor boundaries (unchanged tensors are stored once)', body: CheckpointPutRequest } }, async (request, reply) => {
    const r = await training.putCheckpoint(via('training', request), request.body);
    setWorkUnitHeaders(reply, { workUnitId: r.work_unit_id, manifestId: r.manifest_id });
    return reply.status(201).send(r);
  });
  server.post('/v1/adapters/training/checkpoints/list', { ...doc, schema: { tags, summary: 'Checkpoints of a run with the bytes each avoided', body: RunRefRequest } }, async (request) => training.checkpoints(via('training', request), request.body));
  server.post('/v1/adapters/training/runs/submit', { ...doc, schema: { tags, summary: 'Submit a training run: an identical run (datasets + config + code) is answered from its recorded result', body: TrainingRunSubmitRequest } }, async (request) => training.submitRun(via('training', request), request.body));
  server.post('/v1/adapters/training/runs/complete', { ...doc, schema: { tags, summary: 'Record the result (and measured GPU seconds) of a submitted run', body: TrainingRunCompleteRequest } }, async (request) => training.completeRun(via('training', request), request.body));

  // Adapters that signed plugins provide (docs/plugins.md): any operation they declare, as a JSON object in and out.
  // Static routes above win over this one, so the built-in adapters keep their own schemas.
  server.post(
    '/v1/adapters/:name/:operation',
    {
      ...doc,
      bodyLimit,
      schema: {
        tags,
        summary: 'Call an operation of an adapter provided by a signed plugin (JSON object in and out); missing or disabled adapter → adapter_unavailable',
        params: Type.Object({ name: Type.String({ pattern: ADAPTER_NAME_PATTERN }), operation: Type.String({ pattern: PLUGIN_ADAPTER_OPERATION_PATTERN }) }),
        body: Type.Object({}, { additionalProperties: true }),
      },
    },
    async (request) => {
      const params = request.params as { name: string; operation: string };
      return app.adapters.operations.call(via(params.name, request), params.name, params.operation, request.body);
    },
  );
}
