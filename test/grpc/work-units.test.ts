/**
 * WorkUnitService, PlanService and ManifestService through a real
 * @grpc/grpc-js client against a real server, on SQLite and PostgreSQL:
 * authentication, the create → plan → execute path of a byte object,
 * streamed rehydration (range, whole object, corruption mid-stream), tenant
 * binding and validation errors with the spec's error body.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { corpusFile } from '../../bench/corpus/corpus-files.ts';
import { makePrincipal } from '../../src/svc/auth/principal.ts';
import { engines } from '../helpers/engines.ts';
import { KEYS } from '../helpers/server.ts';
import { type GrpcTestServer, errorBodyFrom, grpcFailure, readStream, startGrpcTestServer, unary, withKey } from './support/grpc-test-server.ts';
import { flipStoredByte } from '../helpers/chunk-damage.ts';

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

// Loose message shapes: the assertions below check the fields that matter.
type Any = Record<string, any>;

for (const engine of engines()) {
  describe(`gRPC work units, plans and manifests on ${engine.name}`, { skip: engine.skip }, () => {
    let s: GrpcTestServer;
    before(async () => {
      s = await startGrpcTestServer({ engine: engine.name });
    });
    after(async () => s?.close());

    const executeBytes = async (data: Uint8Array, logicalRef: string, key: string = KEYS.acmeWriter) =>
      (await unary<Any, Any>(s.clients.workUnits, 'ExecuteInline', { work_unit: { kind: 'WORK_UNIT_KIND_BYTE_OBJECT', logical_ref: logicalRef, payload: { data } } }, withKey(key))).response.result;

    test('a call without a credential is UNAUTHENTICATED with the error body, and still gets a trace id', async () => {
      const err = await grpcFailure(() => unary(s.clients.workUnits, 'Get', { work_unit_id: 'wu_x' }, withKey(null)));
      assert.equal(err.code, grpc.status.UNAUTHENTICATED);
      assert.equal(errorBodyFrom(err).error.code, 'unauthenticated');
      assert.equal(err.metadata.get('svc-error-code')[0], 'unauthenticated');
      assert.match(String((err as unknown as { headers: grpc.Metadata }).headers.get('x-svc-trace-id')[0]), /^[0-9a-f]{32}$/);
    });

    test('an unknown key, and two different credentials at once, are both UNAUTHENTICATED', async () => {
      const unknown = await grpcFailure(() => unary(s.clients.plans, 'List', {}, withKey('not-a-configured-key-0123456789')));
      assert.equal(unknown.code, grpc.status.UNAUTHENTICATED);
      const both = await grpcFailure(() => unary(s.clients.plans, 'List', {}, withKey(KEYS.acmeReader, { authorization: `Bearer ${KEYS.globexWriter}` })));
      assert.equal(both.code, grpc.status.UNAUTHENTICATED);
    });

    test('a bearer token authenticates like x-api-key, and the traceparent trace id is echoed', async () => {
      const md = withKey(null, { authorization: `Bearer ${KEYS.acmeReader}`, traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' });
      const { response, headers } = await unary<Any, Any>(s.clients.plans, 'List', {}, md);
      assert.ok(Array.isArray(response.plans ?? []));
      assert.equal(headers.get('x-svc-trace-id')[0], '0af7651916cd43dd8448eb211c80319c');
    });

    test('create, get, plan and execute a byte object; the result and manifest describe the bytes sent', async () => {
      const data = corpusFile('log-like', 200_000, 'grpc-create');
      const created = await unary<Any, Any>(
        s.clients.workUnits,
        'Create',
        { work_unit: { kind: 'WORK_UNIT_KIND_BYTE_OBJECT', logical_ref: 's3://logs/app.log', payload: { data }, metadata: { owner: 'alice' } } },
        withKey(KEYS.acmeWriter),
      );
      const wu = created.response.work_unit;
      assert.match(wu.work_unit_id, /^wu_[0-9a-z]{26}$/);
      assert.deepEqual([wu.tenant, wu.kind, wu.requested_contract, wu.state], ['acme', 'WORK_UNIT_KIND_BYTE_OBJECT', 'CONTRACT_EXACT_BYTES', 'WORK_UNIT_STATE_CREATED']);
      assert.deepEqual([wu.payload.size, wu.payload.sha256], [data.length, sha256(data)]);
      assert.deepEqual(wu.metadata, { owner: 'alice' });
      assert.equal(wu.trace_id, created.headers.get('x-svc-trace-id')[0]);

      const got = await unary<Any, Any>(s.clients.workUnits, 'Get', { work_unit_id: wu.work_unit_id }, withKey(KEYS.acmeReader));
      assert.equal(got.response.work_unit.logical_ref, 's3://logs/app.log');

      const planned = (await unary<Any, Any>(s.clients.workUnits, 'Plan', { work_unit_id: wu.work_unit_id, options: { mode: 'MODE_OBSERVE' } }, withKey(KEYS.acmeWriter))).response.plan;
      assert.match(planned.plan_id, /^pl_/);
      assert.equal(planned.mode, 'MODE_OBSERVE');
      assert.ok(planned.actions.some((a: Any) => a.type === 'content_defined_chunk' && a.class === 'ACTION_CLASS_EXACT'));
      assert.ok(planned.expected.stored_bytes_reduction > 0, 'log lines compress in the sampled estimate');
      const fromPlanService = (await unary<Any, Any>(s.clients.plans, 'Get', { plan_id: planned.plan_id }, withKey(KEYS.acmeReader))).response.plan;
      assert.deepEqual(fromPlanService, planned);

      const result = (await unary<Any, Any>(s.clients.workUnits, 'Execute', { work_unit_id: wu.work_unit_id }, withKey(KEYS.acmeWriter))).response.result;
      assert.equal(result.work_unit_id, wu.work_unit_id);
      assert.equal(result.plan_id, planned.plan_id, 'execute without options runs the existing plan');
      assert.equal(result.mode, 'MODE_OBSERVE');
      assert.equal(result.output.sha256, sha256(data));
      assert.equal(result.details.bytes_in, data.length);

      const manifest = (await unary<Any, Any>(s.clients.manifests, 'Get', { manifest_id: result.manifest_id }, withKey(KEYS.acmeReader))).response.manifest;
      assert.deepEqual([manifest.manifest_id, manifest.work_unit_id, manifest.sha256, manifest.bytes_in], [result.manifest_id, wu.work_unit_id, sha256(data), data.length]);
      const documentFields = Object.keys(manifest.document.fields);
      for (const field of ['chunks', 'chunking', 'logical_ref', 'stats']) assert.ok(documentFields.includes(field), `document carries ${field}`);

      const again = await grpcFailure(() => unary(s.clients.workUnits, 'Execute', { work_unit_id: wu.work_unit_id }, withKey(KEYS.acmeWriter)));
      assert.equal(again.code, grpc.status.ALREADY_EXISTS);
      assert.equal(errorBodyFrom(again).error.code, 'conflict');
    });

    test('plan inline persists a plan that PlanService lists for the tenant', async () => {
      const plan = (
        await unary<Any, Any>(
          s.clients.workUnits,
          'PlanInline',
          { work_unit: { kind: 'WORK_UNIT_KIND_BYTE_OBJECT', logical_ref: 's3://b/inline', payload: { data: Buffer.from('inline bytes') } } },
          withKey(KEYS.acmeWriter),
        )
      ).response.plan;
      const listed = (await unary<Any, Any>(s.clients.plans, 'List', { tenant: 'acme', work_unit_id: plan.work_unit_id }, withKey(KEYS.acmeReader))).response;
      assert.deepEqual(listed.plans.map((p: Any) => p.plan_id), [plan.plan_id]);
    });

    test('rehydrate streams an info message, then exactly the requested byte range', async () => {
      const data = corpusFile('random', 400_000, 'grpc-range');
      const result = await executeBytes(data, 's3://vault/range.bin');
      const { messages, error } = await readStream<Any, Any>(s.clients.manifests, 'Rehydrate', { manifest_id: result.manifest_id, range: { start: 70_000, end: 270_099 } }, withKey(KEYS.acmeReader));
      assert.equal(error, undefined);
      const [info, ...rest] = messages;
      assert.deepEqual([info?.info?.size, info?.info?.content_length, info?.info?.range_start, info?.info?.range_end], [data.length, 200_100, 70_000, 270_099]);
      assert.ok(rest.every((m) => Buffer.isBuffer(m.data)));
      assert.deepEqual(Buffer.concat(rest.map((m) => m.data)), data.subarray(70_000, 270_100));

      const suffix = await readStream<Any, Any>(s.clients.manifests, 'Rehydrate', { manifest_id: result.manifest_id, range: { suffix: 1000 } }, withKey(KEYS.acmeReader));
      assert.deepEqual(Buffer.concat(suffix.messages.slice(1).map((m) => m.data)), data.subarray(data.length - 1000));
    });

    test('rehydrate without a range streams the whole object in order', async () => {
      const data = corpusFile('random', 1_500_000, 'grpc-whole');
      const result = await executeBytes(data, 's3://vault/whole.bin');
      const { messages, error } = await readStream<Any, Any>(s.clients.manifests, 'Rehydrate', { manifest_id: result.manifest_id }, withKey(KEYS.acmeReader));
      assert.equal(error, undefined);
      assert.equal(messages[0]?.info?.range_start, undefined);
      const body = Buffer.concat(messages.slice(1).map((m) => m.data));
      assert.equal(body.length, data.length);
      assert.equal(sha256(body), sha256(data));
    });

    test('an unsatisfiable range is OUT_OF_RANGE before any message is sent', async () => {
      const result = await executeBytes(Buffer.from('short object'), 's3://vault/short.bin');
      const { messages, error } = await readStream<Any, Any>(s.clients.manifests, 'Rehydrate', { manifest_id: result.manifest_id, range: { start: 5000 } }, withKey(KEYS.acmeReader));
      assert.equal(messages.length, 0);
      assert.equal(error?.code, grpc.status.OUT_OF_RANGE);
      assert.equal(errorBodyFrom(error).error.code, 'range_not_satisfiable');
    });

    test('a chunk corrupted on disk ends the stream with DATA_LOSS, never a clean end', async () => {
      const data = corpusFile('random', 1_200_000, 'grpc-corrupt');
      const result = await executeBytes(data, 's3://vault/corrupt.bin');
      const manifest = s.http.app.objects.manifests;
      const doc = await manifest.get({ principal: makePrincipal('test-admin', ['admin']), traceId: 'test' }, result.manifest_id);
      const victim = doc.chunks[doc.chunks.length - 1]!;
      assert.ok(doc.chunks.length > 2, 'the object spans several chunks');
      await flipStoredByte(s.http.app.objects.chunkBackend, { chunk_scope: doc.chunk_scope, id: victim.id, codec: victim.codec }, 10);

      const { messages, error } = await readStream<Any, Any>(s.clients.manifests, 'Rehydrate', { manifest_id: result.manifest_id }, withKey(KEYS.acmeReader));
      assert.equal(error?.code, grpc.status.DATA_LOSS);
      assert.equal(errorBodyFrom(error).error.code, 'rehydration_failed');
      const received = messages.slice(1).reduce((n, m) => n + (m.data?.length ?? 0), 0);
      assert.ok(received < data.length, 'the corrupt chunk was not delivered');
    });

    test('a tenant-bound key naming another tenant is PERMISSION_DENIED with tenant_forbidden, and nothing is created', async () => {
      const createdEvents = async () => ((await unary<Any, Any>(s.clients.ledger, 'Query', { event_types: ['work_unit.created'], limit: 5000 }, withKey(KEYS.auditor))).response.events ?? []).length;
      const before = await createdEvents();
      const err = await grpcFailure(() =>
        unary(s.clients.workUnits, 'Create', { work_unit: { kind: 'WORK_UNIT_KIND_BYTE_OBJECT', tenant: 'globex', logical_ref: 's3://b/k', payload: { data: Buffer.from('x') } } }, withKey(KEYS.acmeWriter)),
      );
      assert.equal(err.code, grpc.status.PERMISSION_DENIED);
      const body = errorBodyFrom(err);
      assert.equal(body.error.code, 'tenant_forbidden');
      assert.equal(body.error.retryable, false);
      assert.equal(body.error.details?.requested_tenant, 'globex');
      const denied = (await unary<Any, Any>(s.clients.ledger, 'Query', { event_types: ['auth.tenant_denied'] }, withKey(KEYS.auditor))).response.events ?? [];
      assert.ok(denied.some((e: Any) => e.actor === 'acme-writer'), 'the refusal is in the ledger');
      assert.equal(await createdEvents(), before);
    });

    test('an invalid work unit is INVALID_ARGUMENT with the spec error body naming the field', async () => {
      const err = await grpcFailure(() =>
        unary(s.clients.workUnits, 'Create', { work_unit: { kind: 'WORK_UNIT_KIND_BYTE_OBJECT', logical_ref: 'bucket/key', payload: { data: Buffer.from('x') } } }, withKey(KEYS.acmeWriter)),
      );
      assert.equal(err.code, grpc.status.INVALID_ARGUMENT);
      const body = errorBodyFrom(err);
      assert.equal(body.error.code, 'invalid_work_unit');
      assert.equal(body.error.retryable, false);
      assert.match(body.error.message, /logical_ref/);
      assert.equal(err.details, body.error.message);
    });

    test('a work unit without a kind is rejected by the domain, not defaulted by the adapter', async () => {
      const err = await grpcFailure(() => unary(s.clients.workUnits, 'Create', { work_unit: { logical_ref: 's3://b/k', payload: { data: Buffer.from('x') } } }, withKey(KEYS.acmeWriter)));
      assert.equal(err.code, grpc.status.INVALID_ARGUMENT);
      assert.match(errorBodyFrom(err).error.message, /kind/);
    });

    test('another tenant\'s manifest is NOT_FOUND for a tenant-bound reader', async () => {
      const result = await executeBytes(Buffer.from('globex data'), 's3://g/x.bin', KEYS.globexWriter);
      const err = await grpcFailure(() => unary(s.clients.manifests, 'Get', { manifest_id: result.manifest_id }, withKey(KEYS.acmeReader)));
      assert.equal(err.code, grpc.status.NOT_FOUND);
      assert.equal(errorBodyFrom(err).error.code, 'manifest_not_found');
    });

    test('manifests list by logical_ref and explore aggregates by tenant', async () => {
      await executeBytes(Buffer.from('listed one'), 's3://listed/grpc.txt');
      await executeBytes(Buffer.from('listed two'), 's3://listed/grpc.txt');
      const listed = (await unary<Any, Any>(s.clients.manifests, 'List', { logical_ref: 's3://listed/grpc.txt', redacted: true }, withKey(KEYS.acmeReader))).response;
      assert.equal(listed.manifests.length, 2);
      assert.ok(listed.manifests.every((m: Any) => !('logical_ref' in m.document.fields)), 'redacted rows carry no logical_ref');
      const explored = (await unary<Any, Any>(s.clients.manifests, 'Explore', {}, withKey(KEYS.acmeReader))).response;
      assert.equal(explored.tenant, 'acme');
      assert.ok(explored.totals.manifests >= 2);
      assert.equal(explored.by_contract.exact_bytes, explored.totals.manifests);
    });
  });
}
