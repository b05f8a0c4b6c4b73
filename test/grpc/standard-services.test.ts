/**
 * The standard gRPC services on a real svc: grpc.health.v1.Health (Check for
 * the server and every svc.v1 service, Watch turning NOT_SERVING when the
 * server closes, NOT_FOUND for unknown names) and server reflection (the
 * services listed and each one's file descriptor served, so grpcurl needs no
 * proto); and the rich status every failed call carries
 * (grpc-status-details-bin: google.rpc.Status with ErrorInfo and the body).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { createRequire } from 'node:module';
import { after, before, describe, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import * as protoLoader from '@grpc/proto-loader';
import protobuf from 'protobufjs';
import descriptor from 'protobufjs/ext/descriptor/index.js';
import { protoPath as healthProtoPath } from 'grpc-health-check';
import { ERROR_TABLE, SvcError, type SvcErrorCode } from '../../src/svc/errors.ts';
import { toStatusError } from '../../src/svc/grpc/status-error.ts';
import { STATUS_DETAILS_KEY, decodeStatusDetails } from '../../src/svc/grpc/standard/status-details.ts';
import { svcServiceNames } from '../../src/svc/grpc/standard/health-and-reflection.ts';
import { type GrpcTestServer, grpcFailure, startGrpcTestServer, unary, withKey } from './support/grpc-test-server.ts';

type Any = Record<string, any>;
const require = createRequire(import.meta.url);
const reflectionProto = path.join(path.dirname(require.resolve('@grpc/reflection/package.json')), 'build/proto/grpc/reflection/v1/reflection.proto');

function healthClient(address: string) {
  const pkg = grpc.loadPackageDefinition(protoLoader.loadSync(healthProtoPath, { keepCase: true, enums: String })) as Any;
  return new pkg.grpc.health.v1.Health(address, grpc.credentials.createInsecure()) as grpc.Client & Any;
}

/** One request/response exchange on the bidirectional reflection stream. */
function reflect(address: string, request: Any): Promise<Any> {
  const pkg = grpc.loadPackageDefinition(protoLoader.loadSync(reflectionProto, { keepCase: true })) as Any;
  const client = new pkg.grpc.reflection.v1.ServerReflection(address, grpc.credentials.createInsecure());
  return new Promise((resolve, reject) => {
    const call = client.ServerReflectionInfo();
    call.on('data', (m: Any) => {
      resolve(m);
      call.end();
      client.close();
    });
    call.on('error', reject);
    call.write(request);
  });
}

describe('gRPC standard services', () => {
  let s: GrpcTestServer;
  let address: string;
  before(async () => {
    s = await startGrpcTestServer();
    address = `127.0.0.1:${s.grpc.port}`;
  });
  after(async () => {
    await s?.close();
  });

  test('health: the server and every svc.v1 service are SERVING without a credential; an unknown name is NOT_FOUND', async () => {
    const client = healthClient(address);
    try {
      for (const service of ['', ...svcServiceNames()]) {
        const r = await unary<Any, Any>(client, 'Check', { service }, new grpc.Metadata());
        assert.equal(r.response.status, 'SERVING', service);
      }
      const err = await grpcFailure(() => unary(client, 'Check', { service: 'svc.v1.NoSuchService' }, new grpc.Metadata()));
      assert.equal(err.code, grpc.status.NOT_FOUND);
    } finally {
      client.close();
    }
  });

  test('reflection lists svc.v1 services and health, and serves each service descriptor', async () => {
    const listed = await reflect(address, { list_services: '' });
    const names = (listed.list_services_response.service as Any[]).map((x) => x.name);
    for (const n of [...svcServiceNames(), 'grpc.health.v1.Health']) assert.ok(names.includes(n), `${n} listed`);
    const file = await reflect(address, { file_containing_symbol: 'svc.v1.WorkUnitService' });
    const protos = (file.file_descriptor_response.file_descriptor_proto as Buffer[]).map((b) => descriptor.FileDescriptorProto.decode(b) as unknown as Any);
    const svcFile = protos.find((p) => p.package === 'svc.v1');
    assert.ok(svcFile, 'the svc.v1 file descriptor is served');
    const wu = svcFile.service.find((x: Any) => x.name === 'WorkUnitService');
    assert.ok(wu.method.some((m: Any) => m.name === 'Create'));
    // A whole client built from reflection alone can call svc (what grpcurl does).
    const root = (protobuf.Root as Any).fromDescriptor({ file: protos });
    assert.ok(root.lookupService('svc.v1.WorkUnitService'));
  });

  test('a failed call carries the error body in grpc-status-details-bin (google.rpc.Status + ErrorInfo)', async () => {
    const err = await grpcFailure(() => unary(s.clients.workUnits, 'Get', { work_unit_id: 'wu_nope' }, withKey('not-a-key')));
    assert.equal(err.code, grpc.status.UNAUTHENTICATED);
    const raw = err.metadata.get(STATUS_DETAILS_KEY)[0] as Buffer;
    const d = decodeStatusDetails(raw);
    assert.equal(d.code, grpc.status.UNAUTHENTICATED);
    assert.equal(d.reason, 'unauthenticated');
    assert.equal(d.domain, 'svc.v1');
    assert.equal(d.body.error.code, 'unauthenticated');
    const missing = await grpcFailure(() => unary(s.clients.workUnits, 'Get', { work_unit_id: 'wu_01JZZZZZZZZZZZZZZZZZZZZZZZ' }));
    const md = decodeStatusDetails(missing.metadata.get(STATUS_DETAILS_KEY)[0] as Buffer);
    assert.equal(md.code, missing.code);
    assert.equal(md.reason, 'not_found');
  });

  test('every svc code maps one-to-one to an ErrorInfo reason and its table status, body included', () => {
    for (const code of Object.keys(ERROR_TABLE) as SvcErrorCode[]) {
      const status = toStatusError(new SvcError(code, `m ${code}`, { workUnitId: 'wu_1', details: { param: 'x', n: [1, 2] } }));
      const d = decodeStatusDetails(status.metadata!.get(STATUS_DETAILS_KEY)[0] as Buffer);
      assert.equal(d.code, ERROR_TABLE[code].grpc, code);
      assert.equal(d.reason, code);
      assert.deepEqual(d.metadata, { retryable: String(ERROR_TABLE[code].retryable), work_unit_id: 'wu_1' });
      assert.deepEqual(d.body, { error: { code, message: `m ${code}`, work_unit_id: 'wu_1', policy_bundle_id: null, retryable: ERROR_TABLE[code].retryable, details: { param: 'x', n: [1, 2] } } });
    }
  });

  test('health Watch turns NOT_SERVING when the server starts closing', async () => {
    const own = await startGrpcTestServer();
    const client = healthClient(`127.0.0.1:${own.grpc.port}`);
    const seen: string[] = [];
    const call = client.Watch({ service: '' });
    const notServing = new Promise<void>((resolve) => {
      call.on('data', (m: Any) => {
        seen.push(m.status);
        if (m.status === 'NOT_SERVING') resolve();
      });
      call.on('error', () => resolve());
    });
    await new Promise((r) => setTimeout(r, 200));
    const closing = own.close();
    await notServing;
    call.cancel();
    client.close();
    await closing;
    assert.deepEqual(seen.slice(0, 1), ['SERVING']);
    assert.equal(seen.at(-1), 'NOT_SERVING');
  });
});
