/**
 * One ledger event for a refused cross-tenant attempt on every surface: the
 * work-unit route and the AI gateway both write `auth.tenant_denied` with the
 * same payload shape (requested tenant, where), never `auth.tenant.denied`.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { type MockOpenAI, startMockOpenAI } from '../fixtures/mock-openai/mock-openai-server.ts';

let mock: MockOpenAI;
let s: TestServer;
before(async () => {
  mock = await startMockOpenAI();
  s = await startTestServer({ env: { SVC_PROVIDERS_JSON: JSON.stringify([{ name: 'mock', base_url: mock.url, models: [{ id: 'm-small', size_class: 'small' }] }]) } });
});
after(async () => {
  await s?.close();
  await mock?.close();
});

test('REST and the AI gateway write the same auth.tenant_denied event with the requested tenant', async () => {
  const wu = await s.call('POST', '/v1/work-units', { key: KEYS.acmeWriter, body: { kind: 'byte_object', tenant: 'globex', logical_ref: 's3://b/k', payload: { _svc_encoding: 'base64', data: 'YWJj' } } });
  assert.equal(wu.status, 403);
  const ai = await s.call('POST', '/v1/chat/completions', { key: KEYS.acmeWriter, body: { model: 'm-small', messages: [{ role: 'user', content: 'hi' }], svc: { tenant: 'globex' } } });
  assert.equal(ai.status, 403);
  const res = await s.call('POST', '/v1/ledger/query', { body: { limit: 1000 } });
  const events = ((await res.json()) as { events: Array<{ type: string; tenant: string; actor: string; trace_id: string; payload: Record<string, unknown> }> }).events;
  assert.equal(events.filter((e) => e.type === 'auth.tenant.denied').length, 0, 'the dotted variant is gone');
  const denied = events.filter((e) => e.type === 'auth.tenant_denied');
  assert.equal(denied.length, 2);
  for (const e of denied) {
    assert.deepEqual(Object.keys(e.payload).sort(), ['requested_tenant', 'where']);
    assert.equal(e.payload.requested_tenant, 'globex');
    assert.equal(e.tenant, 'acme');
    assert.equal(e.actor, 'acme-writer');
  }
  assert.deepEqual(denied.map((e) => e.payload.where).sort(), ['svc.tenant', 'work_unit.tenant']);
  assert.deepEqual(denied.map((e) => e.trace_id).sort(), [wu.headers.get('x-svc-trace-id'), ai.headers.get('x-svc-trace-id')].sort());
});
