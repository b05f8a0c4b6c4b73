/**
 * svc.v1.AdapterService through a real gRPC client, on SQLite and PostgreSQL:
 * the same domain functions as /v1/adapters — list, get, Call — with tenant
 * isolation, roles, bad input and unknown adapters mapped to the same codes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import * as grpc from '@grpc/grpc-js';
import { fromStruct, toStruct } from '../../src/svc/grpc/mapping/struct.ts';
import { engines } from '../helpers/engines.ts';
import { KEYS } from '../helpers/server.ts';
import { type GrpcTestServer, errorBodyFrom, grpcFailure, startGrpcTestServer, unary, withKey } from '../grpc/support/grpc-test-server.ts';
import { ordersTable } from './parquet-fixtures.ts';

type Any = Record<string, any>;

for (const engine of engines()) {
  describe(`gRPC AdapterService on ${engine.name}`, { skip: engine.skip }, () => {
    let s: GrpcTestServer;
    const call = async (key: string, adapter: string, operation: string, request: Any) =>
      fromStruct((await unary<Any, Any>(s.clients.adapters, 'Call', { adapter, operation, request: toStruct(request) }, withKey(key))).response.result) as Any;
    before(async () => {
      s = await startGrpcTestServer({ engine: engine.name });
    });
    after(async () => {
      await s?.close();
    });

    test('list, put and read a table; unknown adapters, bad files, roles and tenants are refused', async () => {
      const list = fromStruct((await unary<Any, Any>(s.clients.adapters, 'ListAdapters', {}, withKey(KEYS.acmeReader))).response.result) as Any;
      assert.ok(list.adapters.some((a: Any) => a.name === 'lakehouse' && a.status === 'enabled'));

      const unknown = await grpcFailure(() => unary(s.clients.adapters, 'GetAdapter', { name: 'hdf5' }, withKey(KEYS.acmeReader)));
      assert.equal(unknown.code, grpc.status.NOT_FOUND);
      const unknownCall = await grpcFailure(() => call(KEYS.acmeWriter, 'hdf5', 'tables', {}));
      assert.equal(unknownCall.code, grpc.status.UNAVAILABLE);
      assert.equal(errorBodyFrom(unknownCall).error.code, 'adapter_unavailable');

      const put = await call(KEYS.acmeWriter, 'lakehouse', 'tables', { table: 'sales/orders', bucket: 'lake', key: 'o.parquet', body_base64: ordersTable({ rows: 100 }).toString('base64') });
      assert.equal(put.version.row_count, 100);
      const bad = await grpcFailure(() => call(KEYS.acmeWriter, 'lakehouse', 'tables', { table: 'x', bucket: 'lake', key: 'x.parquet', body_base64: Buffer.from('nope').toString('base64') }));
      assert.equal(bad.code, grpc.status.INVALID_ARGUMENT);
      const reader = await grpcFailure(() => call(KEYS.acmeReader, 'lakehouse', 'tables', { table: 'y', bucket: 'lake', key: 'y.parquet', body_base64: ordersTable({ rows: 1 }).toString('base64') }));
      assert.equal(reader.code, grpc.status.PERMISSION_DENIED);
      const noOp = await grpcFailure(() => call(KEYS.acmeReader, 'lakehouse', 'nope', {}));
      assert.equal(noOp.code, grpc.status.NOT_FOUND);

      const mine = await call(KEYS.acmeReader, 'lakehouse', 'tables/list', {});
      assert.deepEqual(mine.tables.map((t: Any) => t.table), ['sales/orders']);
      const theirs = await call(KEYS.globexWriter, 'lakehouse', 'tables/list', {});
      assert.deepEqual(theirs.tables, []);
      const cross = await grpcFailure(() => call(KEYS.globexWriter, 'lakehouse', 'tables/list', { tenant: 'acme' }));
      assert.equal(cross.code, grpc.status.PERMISSION_DENIED);
      assert.equal((await s.http.app.store.adapterRecords.page(undefined, 'lakehouse', 'table_version', '', 10)).length, 1);
    });

    test('stream and training operations through Call answer like REST', async () => {
      const appended = await call(KEYS.acmeWriter, 'stream', 'append', { stream: 'grpc/log', bucket: 'logs', body_text: '{"ts":"2026-01-01T00:00:00Z","m":1}\n' });
      assert.equal(appended.appended.records, 1);
      const again = await call(KEYS.acmeWriter, 'stream', 'append', { stream: 'grpc/log', bucket: 'logs', body_text: '{"ts":"2026-01-01T00:00:00Z","m":1}\n' });
      assert.equal(again.appended, null);
      const read = await call(KEYS.acmeReader, 'stream', 'read', { stream: 'grpc/log' });
      assert.deepEqual(read.records, [{ ts: '2026-01-01T00:00:00Z', m: 1 }]);
      const bad = await grpcFailure(() => call(KEYS.acmeWriter, 'training', 'checkpoints', { run: 'r', bucket: 'ckpt', key: 'k', body_base64: Buffer.from('nope').toString('base64') }));
      assert.equal(bad.code, grpc.status.INVALID_ARGUMENT);
      const foreign = await grpcFailure(() => call(KEYS.globexWriter, 'stream', 'read', { stream: 'grpc/log' }));
      assert.equal(foreign.code, grpc.status.NOT_FOUND);
    });
  });
}
