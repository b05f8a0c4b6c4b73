/**
 * The lakehouse adapter through the real server, on SQLite and PostgreSQL:
 * Parquet table versions round-trip bit-exact, their logical facts are
 * recorded, duplicate datasets across tables are found, the restore test
 * "table logical verification" passes on healthy tables and catches a file
 * that is byte-different but claims to be the recorded table; bad input,
 * roles, tenants and a disabled adapter answer clear 4xx/503 with nothing stored.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import type { RestoreTestResult } from '../../src/svc/restore-tests/restore-test.ts';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { runSvc } from '../helpers/cli.ts';
import { engines } from '../helpers/engines.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { ordersTable } from './parquet-fixtures.ts';

type Json = Record<string, any>;
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

for (const engine of engines()) {
  describe(`lakehouse adapter on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    const putTable = async (table: string, key: string, file: Buffer, apiKey: string = KEYS.acmeWriter) => {
      const r = await s.call('POST', '/v1/adapters/lakehouse/tables', { key: apiKey, body: { table, bucket: 'lake', key, body_base64: file.toString('base64') } });
      assert.equal(r.status, 201, await r.clone().text());
      return (await r.json()) as Json;
    };
    const restoreTest = async () => {
      const r = await s.call('POST', '/v1/admin/restore-tests', { body: { kind: 'table_logical', tenant: 'acme' } });
      assert.equal(r.status, 200, await r.clone().text());
      return ((await r.json()) as { result: RestoreTestResult }).result;
    };
    const manifestCount = async () => (await s.app.store.manifests.page(undefined, '', 1000)).length;

    before(async () => {
      s = await startTestServer({ engine: engine.name });
    });
    after(async () => {
      await s.close();
    });

    test('the adapter is listed as enabled; looking up an unknown adapter is not_found', async () => {
      const list = (await (await s.call('GET', '/v1/adapters', { key: KEYS.acmeReader })).json()) as Json;
      assert.deepEqual(list.adapters.find((a: Json) => a.name === 'lakehouse').status, 'enabled');
      const one = (await (await s.call('GET', '/v1/adapters/lakehouse', { key: KEYS.acmeReader })).json()) as Json;
      assert.equal(one.source, 'builtin');
      const unknown = await s.call('GET', '/v1/adapters/hdf5', { key: KEYS.acmeReader });
      assert.equal(unknown.status, 404);
      assert.equal((await s.call('GET', '/v1/adapters', { key: null })).status, 401);
    });

    test('bad input and roles: clear 4xx, nothing stored', async () => {
      const before = await manifestCount();
      const cases: [Json, number, string][] = [
        [{ table: 'orders', bucket: 'lake', key: 'x.parquet', body_base64: Buffer.from('not parquet at all').toString('base64') }, 400, 'invalid_request'],
        [{ table: 'orders', bucket: 'lake', key: 'x.parquet', body_base64: '!!!' }, 400, 'invalid_request'],
        [{ table: '../etc', bucket: 'lake', key: 'x.parquet', body_base64: 'AAAA' }, 400, 'invalid_request'],
        [{ table: 'orders', bucket: 'lake', key: 'x.parquet' }, 400, 'invalid_request'],
        [{ table: 'orders', bucket: 'lake', key: 'x.parquet', body_base64: 'AAAA', extra: 1 }, 400, 'invalid_request'],
      ];
      for (const [body, status, code] of cases) {
        const r = await s.call('POST', '/v1/adapters/lakehouse/tables', { key: KEYS.acmeWriter, body });
        assert.equal(r.status, status, JSON.stringify(body));
        assert.equal(((await r.json()) as Json).error.code, code);
      }
      const file = ordersTable({ rows: 10 }).toString('base64');
      assert.equal((await s.call('POST', '/v1/adapters/lakehouse/tables', { key: KEYS.acmeReader, body: { table: 'orders', bucket: 'lake', key: 'x.parquet', body_base64: file } })).status, 403);
      assert.equal((await s.call('POST', '/v1/adapters/lakehouse/tables', { key: KEYS.acmeWriter, body: { tenant: 'globex', table: 'orders', bucket: 'lake', key: 'x.parquet', body_base64: file } })).status, 403);
      assert.equal(await manifestCount(), before);
      assert.equal((await s.app.store.adapterRecords.page(undefined, 'lakehouse', 'table_version', '', 10)).length, 0);
    });

    test('table versions round-trip bit-exact with their logical facts; duplicates across tables are found; tenants are isolated', async () => {
      const v1 = ordersTable({ rows: 2000 });
      const v2 = ordersTable({ rows: 3000 });
      const first = await putTable('sales/orders', 'orders/v1.parquet', v1);
      assert.equal(first.version.version, 1);
      assert.equal(first.version.row_count, 2000);
      assert.deepEqual(first.version.columns.map((c: Json) => `${c.name}:${c.type}`), ['id:INT64', 'customer:BYTE_ARRAY/UTF8', 'amount:DOUBLE']);
      assert.deepEqual(first.duplicates, []);
      const second = await putTable('sales/orders', 'orders/v2.parquet', v2);
      assert.equal(second.version.version, 2);
      assert.notEqual(second.version.dataset_digest, first.version.dataset_digest);

      const got = await s.call('POST', '/v1/s3/objects/get', { key: KEYS.acmeReader, body: { bucket: 'lake', key: 'orders/v1.parquet' } });
      assert.equal(got.status, 200);
      assert.equal(sha(Buffer.from(await got.arrayBuffer())), sha(v1));

      // Same rows, another row-group layout: different bytes, same dataset.
      const copy = ordersTable({ rows: 2000, rowGroupSize: 500 });
      assert.notEqual(sha(copy), sha(v1));
      const dup = await putTable('marketing/orders-copy', 'copy/orders.parquet', copy);
      assert.equal(dup.version.dataset_digest, first.version.dataset_digest);
      assert.deepEqual(dup.duplicates, [{ table: 'sales/orders', version: 1 }]);
      const dups = (await (await s.call('POST', '/v1/adapters/lakehouse/duplicates', { key: KEYS.acmeReader, body: {} })).json()) as Json;
      assert.equal(dups.duplicates.length, 1);
      assert.deepEqual(dups.duplicates[0].tables.map((t: Json) => t.table).sort(), ['marketing/orders-copy', 'sales/orders']);

      // The reports' duplicate_datasets finding names the byte-different copy (no chunk is shared with the original).
      const recs = (await (await s.call('GET', '/v1/reports/recommendations?tenant=acme')).json()) as Json;
      const dupFinding = recs.recommendations.find((r: Json) => r.finding === 'duplicate_datasets');
      assert.ok(dupFinding?.evidence.ids.includes(dup.version.manifest_id), JSON.stringify(recs.recommendations.map((r: Json) => r.finding)));
      assert.ok(!dupFinding.evidence.ids.includes(first.version.manifest_id));
      const versions = (await (await s.call('POST', '/v1/adapters/lakehouse/tables/versions', { key: KEYS.acmeReader, body: { table: 'sales/orders' } })).json()) as Json;
      assert.deepEqual(versions.versions.map((v: Json) => v.row_count), [2000, 3000]);
      const tables = (await (await s.call('POST', '/v1/adapters/lakehouse/tables/list', { key: KEYS.acmeReader, body: {} })).json()) as Json;
      assert.deepEqual(tables.tables.map((t: Json) => [t.table, t.version]), [['marketing/orders-copy', 1], ['sales/orders', 2]]);

      // Another tenant sees none of it.
      const globex = (await (await s.call('POST', '/v1/adapters/lakehouse/tables/list', { key: KEYS.globexWriter, body: {} })).json()) as Json;
      assert.deepEqual(globex.tables, []);
      assert.equal((await s.call('POST', '/v1/adapters/lakehouse/tables/versions', { key: KEYS.globexWriter, body: { table: 'sales/orders' } })).status, 404);
      assert.equal((await s.call('POST', '/v1/adapters/lakehouse/tables/list', { key: KEYS.globexWriter, body: { tenant: 'acme' } })).status, 403);
    });

    test('the CLI puts a table file and lists tables and duplicates', { skip: engine.name !== 'sqlite' }, async () => {
      const dir = mkdtempSync(path.join(tmpdir(), 'svc-lake-cli-'));
      const file = path.join(dir, 'events.parquet');
      writeFileSync(file, ordersTable({ rows: 50, from: 9000 }));
      const env = { SVC_URL: s.url, SVC_API_KEY: KEYS.acmeWriter };
      const put = await runSvc(['--json', 'adapter', 'lakehouse', 'put', file, '--table', 'cli/events', '--bucket', 'lake', '--key', 'cli/events.parquet'], env);
      assert.equal(put.status, 0, put.stderr);
      assert.equal(JSON.parse(put.stdout).version.row_count, 50);
      const versions = await runSvc(['--json', 'adapter', 'lakehouse', 'versions', 'cli/events'], env);
      assert.equal(JSON.parse(versions.stdout).versions.length, 1);
      const list = await runSvc(['--json', 'adapter', 'list'], env);
      assert.ok(JSON.parse(list.stdout).adapters.some((a: Json) => a.name === 'lakehouse'));
      const bad = await runSvc(['--json', 'adapter', 'lakehouse', 'versions', 'cli/none'], env);
      assert.equal(bad.status, 1);
    });

    test('table logical verification passes on healthy tables and catches a byte-different file that claims the recorded table', async () => {
      const healthy = await restoreTest();
      assert.equal(healthy.status, 'passed', JSON.stringify(healthy));
      assert.equal(healthy.checked, (await s.app.store.adapterRecords.page(undefined, 'lakehouse', 'table_version', '', 100)).length);
      assert.ok(healthy.checked >= 3);

      const genuine = await putTable('finance/ledger', 'ledger/v1.parquet', ordersTable({ rows: 500 }));
      // Same schema, same row count, one amount off by a cent: another table.
      const impostor = await putTable('finance/ledger-restated', 'ledger/restated.parquet', ordersTable({ rows: 500, tamperRow: 123 }));
      assert.notEqual(impostor.version.dataset_digest, genuine.version.dataset_digest);
      // The impostor's record now claims to be the genuine table (a swapped file, a wrong writer, a bad repair).
      const [record] = await s.app.store.adapterRecords.ofSubject<Json>('acme', 'lakehouse', 'table_version', 'finance/ledger-restated');
      const [genuineRecord] = await s.app.store.adapterRecords.ofSubject<Json>('acme', 'lakehouse', 'table_version', 'finance/ledger');
      await s.app.store.adapterRecords.setFacts(record!.id, genuineRecord!.facts);

      const failed = await restoreTest();
      assert.equal(failed.status, 'failed');
      assert.deepEqual(failed.failures.map((f) => f.manifest_id), [impostor.version.manifest_id]);
      assert.match(failed.failures[0]!.reason, /table_logical: .*column amount checksum differs/);
      // The bytes themselves are intact: a byte-level restore test passes on the same manifest.
      const exact = await s.call('POST', '/v1/admin/restore-tests', { body: { kind: 'sampled_exact', tenant: 'acme', sample_size: 100 } });
      assert.equal(((await exact.json()) as Json).result.status, 'passed');
    });
  });
}

describe('lakehouse adapter disabled by configuration', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ overrides: { 'adapters.disabled': ['lakehouse'] } });
  });
  after(async () => {
    await s.close();
  });

  test('its routes answer adapter_unavailable, nothing is stored, and table_logical is not applicable', async () => {
    const r = await s.call('POST', '/v1/adapters/lakehouse/tables', { key: KEYS.acmeWriter, body: { table: 't', bucket: 'lake', key: 't.parquet', body_base64: ordersTable({ rows: 5 }).toString('base64') } });
    assert.equal(r.status, 503);
    const body = (await r.json()) as Json;
    assert.equal(body.error.code, 'adapter_unavailable');
    assert.equal(body.error.retryable, false);
    assert.equal((await s.app.store.manifests.page(undefined, '', 10)).length, 0);
    const list = (await (await s.call('GET', '/v1/adapters')).json()) as Json;
    assert.equal(list.adapters.find((a: Json) => a.name === 'lakehouse').status, 'disabled');
    assert.equal(((await (await s.call('GET', '/v1/adapters/lakehouse')).json()) as Json).status, 'disabled');
    const rt = (await (await s.call('POST', '/v1/admin/restore-tests', { body: { kind: 'table_logical' } })).json()) as Json;
    assert.equal(rt.result.status, 'not_applicable');
  });
});
