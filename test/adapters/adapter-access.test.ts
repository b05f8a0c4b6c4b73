/**
 * Every `/v1/adapters` operation, on SQLite and PostgreSQL: no credential is
 * 401; a tenant-bound key naming another tenant is 403 (tenant_forbidden); a
 * reader cannot write; an auditor (no work_units:write) cannot write either;
 * and none of it stores anything.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engines } from '../helpers/engines.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { checkpoint } from './checkpoint-fixtures.ts';
import { ordersTable } from './parquet-fixtures.ts';

type Json = Record<string, any>;

const WRITES: [string, Json][] = [
  ['/v1/adapters/lakehouse/tables', { table: 't', bucket: 'lake', key: 't.parquet', body_base64: ordersTable({ rows: 3 }).toString('base64') }],
  ['/v1/adapters/stream/append', { stream: 's', bucket: 'logs', body_text: '{"ts":1}\n' }],
  ['/v1/adapters/training/checkpoints', { run: 'r', bucket: 'ckpt', key: 'c.safetensors', body_base64: checkpoint({ vocab: 8, hidden: 4, layers: 1, frozenLayers: 0 }, 0).toString('base64') }],
  ['/v1/adapters/training/runs/submit', { run: 'r', dataset_manifests: ['mf_01jaaaaaaaaaaaaaaaaaaaaaaa'], config: {}, code_digest: 'a'.repeat(64) }],
  ['/v1/adapters/training/runs/complete', { run_id: 'adr_01jaaaaaaaaaaaaaaaaaaaaaaa', result: {} }],
];
const READS: [string, Json][] = [
  ['/v1/adapters/lakehouse/tables/list', {}],
  ['/v1/adapters/lakehouse/tables/versions', { table: 't' }],
  ['/v1/adapters/lakehouse/duplicates', {}],
  ['/v1/adapters/stream/read', { stream: 's' }],
  ['/v1/adapters/stream/streams/list', {}],
  ['/v1/adapters/stream/unused', {}],
  ['/v1/adapters/training/checkpoints/list', { run: 'r' }],
];

for (const engine of engines()) {
  describe(`adapter routes: authentication, roles and tenants on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer({ engine: engine.name });
    });
    after(async () => {
      await s.close();
    });

    test('every operation refuses a missing key, another tenant, and writes without work_units:write', async () => {
      for (const [route, body] of [...WRITES, ...READS]) {
        assert.equal((await s.call('POST', route, { key: null, body })).status, 401, `${route} without a key`);
        const cross = await s.call('POST', route, { key: KEYS.globexWriter, body: { ...body, tenant: 'acme' } });
        assert.equal(cross.status, 403, `${route} across tenants`);
        assert.equal(((await cross.json()) as Json).error.code, 'tenant_forbidden', route);
      }
      for (const [route, body] of WRITES) {
        for (const key of [KEYS.acmeReader, KEYS.auditor]) {
          const r = await s.call('POST', route, { key, body: key === KEYS.auditor ? { ...body, tenant: 'acme' } : body });
          assert.equal(r.status, 403, `${route} as ${key}`);
        }
      }
      assert.equal((await s.app.store.manifests.page(undefined, '', 10)).length, 0);
      assert.equal((await s.app.store.db.all('SELECT id FROM adapter_records')).length, 0);
    });
  });
}
