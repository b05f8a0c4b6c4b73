/**
 * Operational logs about requests (issue 10, defect 4): one line per answered
 * request carrying tenant, work unit, manifest, policy bundle and trace ids
 * where known, a message that says what happened, and nothing of the
 * request's text; `svc logs query --tenant` finds a tenant's lines.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { runSvc } from '../helpers/cli.ts';
import { ADMIN_KEY, KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

interface Line {
  event_type: string;
  message: string;
  severity: string;
  tenant?: string;
  work_unit_id?: string;
  manifest_id?: string;
  policy_bundle_id?: string;
  trace_id?: string;
  error_code?: string;
  route?: string;
}

describe('request log lines', () => {
  let s: TestServer;
  const MARKER = 'PAYLOAD-MARKER-9c1e';
  const KEY_MARKER = 'not-a-real-key-MARKER-77aa55';
  before(async () => {
    s = await startTestServer({ engine: 'sqlite' });
  });
  after(async () => s?.close());

  async function lines(): Promise<Line[]> {
    await s.app.log.flush();
    return readFileSync(s.app.log.file!, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Line);
  }

  it('a successful object put (201) is logged with tenant, work unit, manifest, bundle and the response trace id', async () => {
    const res = await s.call('POST', '/v1/s3/objects', { key: KEYS.acmeWriter, body: { bucket: 'logs', key: 'a.txt', body_text: MARKER } });
    assert.equal(res.status, 201, await res.clone().text());
    const traceId = res.headers.get('x-svc-trace-id');
    const line = (await lines()).find((l) => l.trace_id === traceId && l.event_type === 'http.request');
    assert.ok(line, 'a line for the request');
    assert.equal(line.tenant, 'acme');
    assert.equal(line.work_unit_id, res.headers.get('x-svc-work-unit-id'));
    assert.equal(line.manifest_id, res.headers.get('x-svc-manifest-id'));
    assert.match(line.policy_bundle_id ?? '', /^pb_/);
    assert.equal(line.message, 'POST /v1/s3/objects answered 201');
  });

  it('an unbound admin acting on a named tenant is logged under that tenant', async () => {
    const res = await s.call('POST', '/v1/work-units', {
      body: { kind: 'byte_object', tenant: 'globex', logical_ref: 's3://b/k', payload: { _svc_encoding: 'base64', data: Buffer.from(MARKER).toString('base64') } },
    });
    assert.equal(res.status, 201);
    const line = (await lines()).find((l) => l.trace_id === res.headers.get('x-svc-trace-id'));
    assert.equal(line?.tenant, 'globex');
    assert.equal(line?.work_unit_id, res.headers.get('x-svc-work-unit-id'));
  });

  it('a rejection says what was rejected and why, with the error code, and no request text', async () => {
    const res = await s.call('POST', '/v1/s3/objects', { key: KEYS.acmeWriter, body: { bucket: 'logs', key: 'b.txt', body_text: MARKER, body_base64: 'AAAA' } });
    assert.equal(res.status, 400);
    const line = (await lines()).find((l) => l.trace_id === res.headers.get('x-svc-trace-id'));
    assert.equal(line?.error_code, 'invalid_request');
    assert.equal(line?.tenant, 'acme');
    assert.equal(line?.message, 'POST /v1/s3/objects rejected: invalid_request (400)');
  });

  it('a refused credential is logged as auth.rejected without the credential', async () => {
    const res = await s.call('GET', '/v1/plans', { key: KEY_MARKER });
    assert.equal(res.status, 401);
    const line = (await lines()).find((l) => l.trace_id === res.headers.get('x-svc-trace-id'));
    assert.equal(line?.event_type, 'auth.rejected');
    assert.equal(line?.error_code, 'unauthenticated');
  });

  it('svc logs query --tenant acme returns acme lines only, and neither payload nor key text is in the file', async () => {
    const r = await runSvc(['logs', 'query', '--tenant', 'acme', '--json'], { SVC_URL: s.url, SVC_API_KEY: ADMIN_KEY });
    assert.equal(r.status, 0, r.stderr);
    const entries = (JSON.parse(r.stdout) as { entries: Line[] }).entries;
    assert.ok(entries.length >= 2, `acme lines: ${entries.length}`);
    assert.ok(entries.every((e) => e.tenant === 'acme'));
    const text = readFileSync(s.app.log.file!, 'utf8');
    assert.equal(text.includes(MARKER), false);
    assert.equal(text.includes(Buffer.from(MARKER).toString('base64')), false);
    assert.equal(text.includes(KEY_MARKER), false);
  });
});
