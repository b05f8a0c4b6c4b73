/**
 * The authentication and tenant-binding matrix, through the real HTTP server.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { ADMIN_KEY, KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { engines } from '../helpers/engines.ts';

const byteObject = (tenant?: string) => ({
  kind: 'byte_object',
  ...(tenant ? { tenant } : {}),
  logical_ref: 's3://bucket/object.txt',
  payload: { _svc_encoding: 'base64', data: Buffer.from('hello world').toString('base64') },
});

function assertErrorBody(body: any, code: string) {
  assert.equal(body.error.code, code);
  assert.equal(typeof body.error.message, 'string');
  assert.ok('work_unit_id' in body.error && 'policy_bundle_id' in body.error);
  assert.equal(typeof body.error.retryable, 'boolean');
}

for (const engine of engines()) {
  describe(`auth matrix on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer({ engine: engine.name });
    });
    after(async () => s?.close());

    test('health and readiness are public', async () => {
      assert.equal((await s.call('GET', '/healthz', { key: null })).status, 200);
      const ready = await s.call('GET', '/readyz', { key: null });
      assert.equal(ready.status, 200);
      assert.equal(((await ready.json()) as any).ready, true);
    });

    test('a /v1 route without a credential is 401 with the error body', async () => {
      const res = await s.call('GET', '/v1/plans', { key: null });
      assert.equal(res.status, 401);
      assertErrorBody(await res.json(), 'unauthenticated');
      assert.ok(res.headers.get('x-svc-trace-id'));
    });

    test('/metrics requires a credential too', async () => {
      assert.equal((await s.call('GET', '/metrics', { key: null })).status, 401);
      const ok = await s.call('GET', '/metrics');
      assert.equal(ok.status, 200);
      assert.match(await ok.text(), /svc_ledger_events_total/);
    });

    test('an unknown key is 401', async () => {
      const res = await s.call('GET', '/v1/plans', { key: 'not-a-configured-key-000000000' });
      assert.equal(res.status, 401);
      assertErrorBody(await res.json(), 'unauthenticated');
    });

    test('Authorization: Bearer works like X-API-Key', async () => {
      const res = await s.call('GET', '/v1/plans', { key: null, headers: { authorization: `Bearer ${ADMIN_KEY}` } });
      assert.equal(res.status, 200);
      const wrong = await s.call('GET', '/v1/plans', { key: null, headers: { authorization: 'Bearer nope-nope-nope-nope' } });
      assert.equal(wrong.status, 401);
    });

    test('two different credentials in one request are refused', async () => {
      const res = await s.call('GET', '/v1/plans', { key: ADMIN_KEY, headers: { authorization: `Bearer ${KEYS.acmeReader}` } });
      assert.equal(res.status, 401);
    });

    test('a tenant-bound writer creates work units in its own tenant without naming it', async () => {
      const res = await s.call('POST', '/v1/work-units', { key: KEYS.acmeWriter, body: byteObject() });
      assert.equal(res.status, 201);
      assert.equal(((await res.json()) as any).tenant, 'acme');
    });

    test('a tenant-bound writer naming another tenant in the body is 403 and audited', async () => {
      const res = await s.call('POST', '/v1/work-units', { key: KEYS.acmeWriter, body: byteObject('globex') });
      assert.equal(res.status, 403);
      assertErrorBody(await res.json(), 'tenant_forbidden');
      const events = await (await s.call('POST', '/v1/ledger/query', { body: { event_types: ['auth.tenant_denied'] } })).json() as any;
      assert.ok(events.events.some((e: any) => e.actor === 'acme-writer' && e.payload.requested_tenant === 'globex'));
    });

    test('a tenant-bound principal naming another tenant in a query is 403', async () => {
      const res = await s.call('GET', '/v1/plans?tenant=globex', { key: KEYS.acmeReader });
      assert.equal(res.status, 403);
      assertErrorBody(await res.json(), 'tenant_forbidden');
    });

    test('a tenant-bound principal never sees another tenant’s work unit', async () => {
      const created = (await (await s.call('POST', '/v1/work-units', { key: KEYS.globexWriter, body: byteObject() })).json()) as any;
      const res = await s.call('GET', `/v1/work-units/${created.work_unit_id}`, { key: KEYS.acmeReader });
      assert.equal(res.status, 404);
      const own = await s.call('GET', `/v1/work-units/${created.work_unit_id}`, { key: KEYS.globexWriter });
      assert.equal(own.status, 200);
    });

    test('a tenant-bound principal listing without a tenant sees only its own', async () => {
      await s.call('POST', '/v1/work-units/plan', { key: KEYS.globexWriter, body: byteObject() });
      await s.call('POST', '/v1/work-units/plan', { key: KEYS.acmeWriter, body: byteObject() });
      const list = (await (await s.call('GET', '/v1/plans', { key: KEYS.acmeReader })).json()) as any;
      assert.ok(list.plans.length > 0);
      assert.ok(list.plans.every((p: any) => p.tenant === 'acme'));
    });

    test('a token shaped like "admin:…" grants only what configuration gives it', async () => {
      const write = await s.call('POST', '/v1/work-units', { key: KEYS.prefixShaped, body: byteObject() });
      assert.equal(write.status, 403);
      assertErrorBody(await write.json(), 'forbidden');
      const ledger = await s.call('POST', '/v1/ledger/query', { key: KEYS.prefixShaped, body: {} });
      assert.equal(ledger.status, 403);
      const unknownPrefix = await s.call('GET', '/v1/plans', { key: 'admin:whatever-0123456789' });
      assert.equal(unknownPrefix.status, 401);
    });

    test('the ledger actor is the authenticated principal, not a body field', async () => {
      const res = await s.call('POST', '/v1/work-units', { key: KEYS.acmeWriter, body: { ...byteObject(), metadata: { actor: 'mallory' } } });
      const wu = (await res.json()) as any;
      const events = (await (await s.call('POST', '/v1/ledger/query', { body: { tenant: 'acme', event_types: ['work_unit.created'] } })).json()) as any;
      const mine = events.events.find((e: any) => e.work_unit_id === wu.work_unit_id);
      assert.equal(mine.actor, 'acme-writer');
    });
  });
}
