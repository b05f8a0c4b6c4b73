/**
 * Approvals through the real HTTP server on SQLite and PostgreSQL: issue,
 * read, revoke, the published key, and every refusal case of a redeem.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { compactVerify, importJWK, type JWK } from 'jose';
import { engines } from '../helpers/engines.ts';
import { KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { ledgerEvents } from '../policy/support/ledger.ts';


for (const engine of engines()) {
  describe(`approvals API on ${engine.name}`, { skip: engine.skip }, () => {
    let s: TestServer;
    /** A stored acme work unit: approvals bind only to work units that exist in their tenant. */
    let WU: string;
    before(async () => {
      s = await startTestServer({ engine: engine.name });
      const created = await s.call('POST', '/v1/work-units', {
        key: KEYS.acmeWriter,
        body: { kind: 'byte_object', logical_ref: 'file://approvals/a.bin', payload: { _svc_encoding: 'base64', data: 'aGVsbG8=' } },
      });
      assert.equal(created.status, 201, await created.clone().text());
      WU = ((await created.json()) as { work_unit_id: string }).work_unit_id;
    });
    after(async () => {
      await s?.close();
    });

    async function issue(body: Record<string, unknown> = {}): Promise<{ token: string; approval: { id: string; actor: string; bundle_hash: string } }> {
      // `work_unit_id: null` issues an approval bound to no work unit.
      const merged: Record<string, unknown> = { tenant: 'acme', contract: 'semantic', work_unit_id: WU, ...body };
      if (merged['work_unit_id'] === null) delete merged['work_unit_id'];
      const res = await s.call('POST', '/v1/approvals', { key: KEYS.approver, body: merged });
      assert.equal(res.status, 201, await res.clone().text());
      return (await res.json()) as { token: string; approval: { id: string; actor: string; bundle_hash: string } };
    }

    async function redeem(token: string | undefined, body: Record<string, unknown> = {}, key: string = KEYS.acmeWriter) {
      const res = await s.call('POST', '/v1/approvals/redeem', { key, body: { contract: 'semantic', work_unit_id: WU, ...body }, headers: token ? { 'X-SVC-Approval': token } : {} });
      return { status: res.status, body: (await res.json()) as { approved?: boolean; error?: { code: string; details?: { reason: string } } } };
    }

    const reasonOf = (r: Awaited<ReturnType<typeof redeem>>) => [r.status, r.body.error?.code, r.body.error?.details?.reason];

    it('refuses an unknown contract and a work unit that is missing or another tenant\'s, with one answer for both', async () => {
      const bad = await s.call('POST', '/v1/approvals', { key: KEYS.approver, body: { tenant: 'acme', contract: 'no_such_contract' } });
      assert.equal(bad.status, 400);
      assert.match(((await bad.json()) as { error: { message: string } }).error.message, /unknown contract 'no_such_contract'/);
      const foreign = await s.call('POST', '/v1/approvals', { key: KEYS.approver, body: { tenant: 'globex', contract: 'semantic', work_unit_id: WU } });
      const missing = await s.call('POST', '/v1/approvals', { key: KEYS.approver, body: { tenant: 'globex', contract: 'semantic', work_unit_id: 'wu_01jzzzzzzzzzzzzzzzzzzzzzzz' } });
      assert.deepEqual([foreign.status, missing.status], [404, 404]);
      const [f, m] = [(await foreign.json()) as { error: { code: string } }, (await missing.json()) as { error: { code: string } }];
      assert.equal(f.error.code, m.error.code);
    });

    it('issues an approval whose actor is the caller, verifiable with the published key', async () => {
      const { token, approval } = await issue();
      assert.equal(approval.actor, 'approver');
      const keys = (await (await s.call('GET', '/v1/approvals/public-key', { key: KEYS.acmeReader })).json()) as { keys: JWK[] };
      const verified = await compactVerify(token, await importJWK(keys.keys[0]!, 'EdDSA'));
      assert.equal(JSON.parse(new TextDecoder().decode(verified.payload)).jti, approval.id);
      const got = (await (await s.call('GET', `/v1/approvals/${approval.id}`, { key: KEYS.approver })).json()) as { approval: { id: string } };
      assert.equal(got.approval.id, approval.id);
    });

    it('rejects an actor field in the body', async () => {
      const res = await s.call('POST', '/v1/approvals', { key: KEYS.approver, body: { contract: 'semantic', actor: 'someone-else' } });
      assert.equal(res.status, 400);
    });

    it('refuses to issue without the approver role', async () => {
      const res = await s.call('POST', '/v1/approvals', { key: KEYS.acmeWriter, body: { contract: 'semantic' } });
      assert.equal(res.status, 403);
    });

    it('accepts an approval once and refuses its replay', async () => {
      const { token } = await issue();
      assert.deepEqual(await redeem(token).then((r) => [r.status, r.body.approved]), [200, true]);
      assert.deepEqual(reasonOf(await redeem(token)), [403, 'approval_invalid', 'replayed']);
    });

    it('requires an approval when none is presented', async () => {
      assert.deepEqual(reasonOf(await redeem(undefined)), [403, 'approval_required', 'missing']);
    });

    it('refuses a revoked approval', async () => {
      const { token, approval } = await issue();
      assert.equal((await s.call('POST', `/v1/approvals/${approval.id}/revoke`, { key: KEYS.approver })).status, 200);
      assert.deepEqual(reasonOf(await redeem(token)), [403, 'approval_invalid', 'revoked']);
    });

    it('refuses an approval issued for another tenant', async () => {
      const { token } = await issue({ tenant: 'globex', work_unit_id: null });
      assert.deepEqual(reasonOf(await redeem(token)), [403, 'approval_invalid', 'tenant_mismatch']);
    });

    it('refuses an approval for another work unit', async () => {
      const { token } = await issue();
      assert.deepEqual(reasonOf(await redeem(token, { work_unit_id: 'wu_01jbbbbbbbbbbbbbbbbbbbbbbb' })), [403, 'approval_invalid', 'work_unit_mismatch']);
    });

    it('refuses an expired approval', async () => {
      const { token } = await issue({ ttl_seconds: 1 });
      await new Promise((r) => setTimeout(r, 2100));
      assert.deepEqual(reasonOf(await redeem(token)), [403, 'approval_invalid', 'expired']);
    });

    it('refuses a tampered approval', async () => {
      const { token } = await issue({ tenant: 'globex', work_unit_id: null });
      const [h, p, sig] = token.split('.') as [string, string, string];
      const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
      claims['tenant'] = 'acme';
      const forged = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${sig}`;
      assert.deepEqual(reasonOf(await redeem(forged)), [403, 'approval_invalid', 'bad_signature']);
    });

    it('refuses an approval issued under another bundle once a new one is in force', async () => {
      const { token } = await issue();
      const pub = await s.call('POST', '/v1/policies/bundles/default/publish', {
        key: KEYS.publisher,
        body: { document: 'name: default\nversion: "approvals-2"\npolicies:\n  - id: pol_x\n    effect: allow\n    match: { action: zstd }\n' },
      });
      assert.equal(pub.status, 201);
      assert.deepEqual(reasonOf(await redeem(token)), [403, 'approval_invalid', 'bundle_mismatch']);
    });

    it('writes a ledger event for every refusal, with the presenter as actor', async () => {
      const refused = await ledgerEvents(s, ['approval.refused']);
      const reasons = new Set(refused.map((e) => e.payload['reason']));
      for (const r of ['replayed', 'missing', 'revoked', 'tenant_mismatch', 'work_unit_mismatch', 'expired', 'bad_signature', 'bundle_mismatch']) assert.ok(reasons.has(r), r);
      assert.ok(refused.every((e) => e.actor === 'acme-writer'));
    });

    it('lists only the caller tenant for a tenant-bound reader', async () => {
      const res = await s.call('GET', '/v1/approvals', { key: KEYS.acmeReader });
      const body = (await res.json()) as { approvals: Array<{ tenant: string }> };
      assert.ok(body.approvals.length > 0);
      assert.ok(body.approvals.every((a) => a.tenant === 'acme'));
    });
  });
}
