/**
 * A policy obligation `requires_approval` holds execution until a valid
 * signed approval is presented (X-SVC-Approval), on every exact path.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { engines } from '../helpers/engines.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

const BUNDLE = `name: default
version: "2"
default_effect: allow
policies:
  - id: pol_regulated_needs_approval
    description: "exact executes for the regulated tenant need a signed approval"
    match:
      tenant: regulated
      action: content_defined_chunk
    obligations: [requires_approval]
`;

const body = (text: string) => ({
  kind: 'byte_object',
  tenant: 'regulated',
  logical_ref: 's3://vault/record.txt',
  payload: { _svc_encoding: 'base64', data: Buffer.from(text).toString('base64') },
});

for (const engine of engines()) {
  describe(`execution under requires_approval on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    before(async () => {
      s = await startTestServer({ engine: engine.name });
      const pub = await s.call('POST', '/v1/policies/bundles/default/publish', { key: KEYS.publisher, body: { document: BUNDLE } });
      assert.equal(pub.status, 201, await pub.text());
    });
    after(async () => s?.close());

    const manifestsOf = async () => ((await (await s.call('GET', '/v1/manifests?tenant=regulated')).json()) as any).manifests.length;

    test('without an approval the execution is refused, audited, and nothing is stored', async () => {
      const res = await s.call('POST', '/v1/work-units/execute', { body: body('no approval') });
      assert.equal(res.status, 403);
      const err = ((await res.json()) as any).error;
      assert.equal(err.code, 'approval_required');
      assert.ok(err.work_unit_id);
      assert.equal(await manifestsOf(), 0);
      const events = (await (await s.call('POST', '/v1/ledger/query', { body: { event_types: ['approval.refused'] } })).json()) as any;
      assert.ok(events.events.some((e: any) => e.work_unit_id === err.work_unit_id && e.payload.reason === 'missing'));
    });

    test('a valid approval for the work unit lets it execute once; replaying it on another unit is refused', async () => {
      const wu = (await (await s.call('POST', '/v1/work-units', { body: body('approved bytes') })).json()) as any;
      const issued = await s.call('POST', '/v1/approvals', { key: KEYS.approver, body: { tenant: 'regulated', contract: 'exact_bytes', work_unit_id: wu.work_unit_id } });
      assert.equal(issued.status, 201, await issued.clone().text());
      const { token } = (await issued.json()) as any;

      const ok = await s.call('POST', `/v1/work-units/${wu.work_unit_id}/execute`, { headers: { 'X-SVC-Approval': token } });
      assert.equal(ok.status, 200, await ok.clone().text());
      const result = (await ok.json()) as any;
      assert.equal(result.accepted, true);
      assert.equal(await manifestsOf(), 1);

      const other = (await (await s.call('POST', '/v1/work-units', { body: body('other bytes') })).json()) as any;
      const replay = await s.call('POST', `/v1/work-units/${other.work_unit_id}/execute`, { headers: { 'X-SVC-Approval': token } });
      assert.equal(replay.status, 403);
      assert.equal(((await replay.json()) as any).error.code, 'approval_invalid');
      assert.equal(await manifestsOf(), 1);
    });

    test('a tampered approval token is refused', async () => {
      const wu = (await (await s.call('POST', '/v1/work-units', { body: body('tampered') })).json()) as any;
      const { token } = (await (await s.call('POST', '/v1/approvals', { key: KEYS.approver, body: { tenant: 'regulated', contract: 'exact_bytes', work_unit_id: wu.work_unit_id } })).json()) as any;
      const [h, p, sig] = token.split('.');
      const forged = `${h}.${p}.${sig.slice(0, -2)}${sig.endsWith('AA') ? 'BB' : 'AA'}`;
      const res = await s.call('POST', `/v1/work-units/${wu.work_unit_id}/execute`, { headers: { 'X-SVC-Approval': forged } });
      assert.equal(res.status, 403);
      assert.equal(((await res.json()) as any).error.code, 'approval_invalid');
    });

    test('other tenants are not held by the obligation', async () => {
      const res = await s.call('POST', '/v1/work-units/execute', { body: { ...body('free'), tenant: 'open' } });
      assert.equal(res.status, 200);
    });
  });
}
