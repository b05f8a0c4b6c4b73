/**
 * Framework-level answers carry the spec's error body too (issue 10, defects
 * 12 and 15): a wrong method on a known path is 405 with `Allow`; an unknown
 * path is 404; an empty body sent as application/json is "no body".
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type TestServer, startTestServer } from '../helpers/server.ts';

interface ErrorBody {
  error: { code: string; message: string; work_unit_id: string | null; policy_bundle_id: string | null; retryable: boolean };
}

function assertSpecBody(body: ErrorBody): void {
  assert.equal(typeof body.error.code, 'string');
  assert.equal(typeof body.error.message, 'string');
  assert.equal(typeof body.error.retryable, 'boolean');
  assert.ok('work_unit_id' in body.error && 'policy_bundle_id' in body.error);
}

describe('HTTP framework errors', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer({ engine: 'sqlite' });
  });
  after(async () => s?.close());

  it('a wrong method on a known path is 405 with Allow and the error body', async () => {
    const res = await s.call('DELETE', '/v1/plans');
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'GET, HEAD, POST', 'fastify serves HEAD for every GET route');
    const body = (await res.json()) as ErrorBody;
    assertSpecBody(body);
    assert.equal(body.error.code, 'method_not_allowed');
  });

  it('a wrong method on a path with a parameter is 405 too', async () => {
    const res = await s.call('DELETE', '/v1/work-units/wu_01jaaaaaaaaaaaaaaaaaaaaaaa');
    assert.equal(res.status, 405);
    assert.match(res.headers.get('allow') ?? '', /GET/);
  });

  it('an unknown path is 404 with the error body', async () => {
    const res = await s.call('GET', '/v1/no-such-thing');
    assert.equal(res.status, 404);
    assertSpecBody((await res.json()) as ErrorBody);
  });

  it('an empty body sent as application/json is accepted where the route takes no body', async () => {
    const created = await s.call('POST', '/v1/work-units', {
      body: { kind: 'byte_object', tenant: 'acme', logical_ref: 's3://b/empty', payload: { _svc_encoding: 'base64', data: 'aGk=' } },
    });
    const { work_unit_id } = (await created.json()) as { work_unit_id: string };
    const res = await fetch(`${s.url}/v1/work-units/${work_unit_id}/plan`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'test-admin-key-0123456789abcdef' }, body: '' });
    assert.equal(res.status, 200, await res.clone().text());
  });

  it('malformed JSON is 400 with the error body', async () => {
    const res = await fetch(`${s.url}/v1/work-units`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'test-admin-key-0123456789abcdef' }, body: '{"kind":' });
    assert.equal(res.status, 400);
    assertSpecBody((await res.json()) as ErrorBody);
  });
});
