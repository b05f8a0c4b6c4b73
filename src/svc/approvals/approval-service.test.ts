import assert from 'node:assert/strict';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { decodeJwt, decodeProtectedHeader } from 'jose';
import { MemoryApprovalRepository } from '../../../test/approvals/support/memory-approval-repository.ts';
import { AuditRecorder } from '../../../test/policy/support/audit-recorder.ts';
import { makePrincipal } from '../auth/principal.ts';
import { SvcError } from '../errors.ts';
import type { BundleRef } from '../policy/types.ts';
import { ApprovalService } from './approval-service.ts';
import { loadOrCreateSigningKey, signingKeyPaths } from './signing-key.ts';

const BUNDLE: BundleRef = { id: 'pb_01aaaaaaaaaaaaaaaaaaaaaaaa', name: 'default', version: '1', hash: 'a'.repeat(64) };
const OTHER_BUNDLE: BundleRef = { ...BUNDLE, version: '2', hash: 'b'.repeat(64) };
const WU = 'wu_01bbbbbbbbbbbbbbbbbbbbbbbb';
const approver = { principal: makePrincipal('ann', ['approver']), traceId: 'tr_a' };
const executor = { principal: makePrincipal('eve', ['writer'], 'acme') };
/** The stored work units the service can see: WU in acme, OTHER_WU in globex. */
const OTHER_WU = 'wu_01eeeeeeeeeeeeeeeeeeeeeeee';
const WORK_UNIT_TENANTS = new Map<string, string>([[WU, 'acme'], [OTHER_WU, 'globex']]);
const scope = { tenant: 'acme', contract: 'semantic', bundle: BUNDLE, work_unit_id: WU };

function refusalReason(reason: string, code = 'approval_invalid') {
  return (e: SvcError) => e.code === code && e.details?.['reason'] === reason && e.retryable === false;
}

describe('ApprovalService', () => {
  let dir: string;
  let clock: Date;
  let audit: AuditRecorder;
  let repo: MemoryApprovalRepository;
  let service: ApprovalService;

  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'svc-approvals-'));
    const key = await loadOrCreateSigningKey(dir);
    clock = new Date('2030-01-01T00:00:00Z');
    audit = new AuditRecorder();
    repo = new MemoryApprovalRepository();
    service = new ApprovalService({ repository: repo, key, audit, activeBundle: () => BUNDLE, workUnitTenant: async (id) => WORK_UNIT_TENANTS.get(id), now: () => clock });
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const issue = (over: Record<string, unknown> = {}) => service.create(approver, { tenant: 'acme', contract: 'semantic', work_unit_id: WU, ...over });

  it('refuses an unknown contract, naming the valid ones', async () => {
    await assert.rejects(issue({ contract: 'no_such_contract' }), (e: SvcError) => e.code === 'invalid_request' && /exact_bytes, semantic/.test(e.message));
  });

  it('refuses a work unit of another tenant exactly like a missing one, and writes nothing', async () => {
    const before = audit.ofType('approval.created').length;
    const other = await issue({ work_unit_id: OTHER_WU }).catch((e: SvcError) => e);
    const missing = await issue({ work_unit_id: 'wu_01ffffffffffffffffffffffff' }).catch((e: SvcError) => e);
    assert.ok(other instanceof SvcError && missing instanceof SvcError);
    assert.equal(other.code, 'not_found');
    assert.equal(missing.code, other.code);
    assert.equal(missing.message.replace(/wu_\w+/, ''), other.message.replace(/wu_\w+/, ''));
    assert.equal(audit.ofType('approval.created').length, before);
  });

  it('stores the signing key with owner-only permissions and publishes the public JWK', async () => {
    const info = await stat(signingKeyPaths(dir).privatePath);
    assert.equal(info.mode & 0o777, 0o600);
    const jwk = service.publicKey();
    assert.equal(jwk['kty'], 'OKP');
    assert.equal(jwk['crv'], 'Ed25519');
    assert.equal(jwk['d'], undefined, 'the private part is never published');
  });

  it('reuses the same key on the next start', async () => {
    const again = await loadOrCreateSigningKey(dir);
    assert.equal(again.kid, service.publicKey()['kid']);
  });

  it('issues a compact EdDSA JWS bound to tenant, contract, bundle and work unit, with the caller as actor', async () => {
    const { approval, token } = await issue();
    assert.match(approval.id, /^apr_/);
    assert.equal(approval.actor, 'ann');
    const header = decodeProtectedHeader(token);
    assert.equal(header.alg, 'EdDSA');
    const claims = decodeJwt(token);
    assert.equal(claims.jti, approval.id);
    assert.equal(claims['bundle_hash'], BUNDLE.hash);
    assert.equal(claims['work_unit_id'], WU);
    assert.equal(audit.ofType('approval.created').at(-1)?.actor, 'ann');
  });

  it('refuses to issue without the approver permission', async () => {
    await assert.rejects(service.create(executor, { contract: 'semantic' }), (e: SvcError) => e.code === 'forbidden');
  });

  it('refuses to issue under a bundle that is not in force', async () => {
    await assert.rejects(issue({ bundle_id: 'pb_01cccccccccccccccccccccccc' }), (e: SvcError) => e.code === 'invalid_request');
  });

  it('accepts a valid approval once and refuses its replay', async () => {
    const { token, approval } = await issue();
    const used = await service.assertApproved(executor, scope, token);
    assert.equal(used.id, approval.id);
    assert.equal(audit.ofType('approval.used').at(-1)?.payload['approval_id'], approval.id);
    await assert.rejects(service.assertApproved(executor, scope, token), refusalReason('replayed'));
    assert.equal(audit.ofType('approval.refused').at(-1)?.payload['reason'], 'replayed');
  });

  it('lets a multi-use approval be presented repeatedly', async () => {
    const { token } = await issue({ single_use: false });
    await service.assertApproved(executor, scope, token);
    await service.assertApproved(executor, scope, token);
  });

  it('requires an approval when none is presented', async () => {
    await assert.rejects(service.assertApproved(executor, scope, undefined), refusalReason('missing', 'approval_required'));
  });

  it('refuses a revoked approval', async () => {
    const { token, approval } = await issue();
    const revoked = await service.revoke(approver, approval.id);
    assert.equal(revoked.revoked_by, 'ann');
    assert.equal(audit.ofType('approval.revoked').at(-1)?.payload['approval_id'], approval.id);
    await assert.rejects(service.assertApproved(executor, scope, token), refusalReason('revoked'));
  });

  it('refuses an approval for another tenant', async () => {
    const { token } = await issue({ tenant: 'globex', work_unit_id: OTHER_WU });
    await assert.rejects(service.assertApproved(executor, { ...scope, work_unit_id: OTHER_WU }, token), refusalReason('tenant_mismatch'));
  });

  it('refuses an approval for another contract', async () => {
    const { token } = await issue({ contract: 'exact_bytes' });
    await assert.rejects(service.assertApproved(executor, scope, token), refusalReason('contract_mismatch'));
  });

  it('refuses an approval issued under another bundle', async () => {
    const { token } = await issue();
    await assert.rejects(service.assertApproved(executor, { ...scope, bundle: OTHER_BUNDLE }, token), refusalReason('bundle_mismatch'));
  });

  it('refuses an approval bound to another work unit', async () => {
    const { token } = await issue();
    await assert.rejects(service.assertApproved(executor, { ...scope, work_unit_id: 'wu_01dddddddddddddddddddddddd' }, token), refusalReason('work_unit_mismatch'));
  });

  it('refuses an expired approval', async () => {
    const { token } = await issue({ ttl_seconds: 60 });
    const saved = clock;
    clock = new Date(saved.getTime() + 61_000);
    try {
      await assert.rejects(service.assertApproved(executor, scope, token), refusalReason('expired'));
    } finally {
      clock = saved;
    }
  });

  it('refuses a tampered approval', async () => {
    const { token } = await issue();
    const [h, p, s] = token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString()) as Record<string, unknown>;
    claims['tenant'] = 'acme';
    claims['contract'] = 'semantic';
    claims['single_use'] = false;
    const forged = `${h}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${s}`;
    await assert.rejects(service.assertApproved(executor, scope, forged), refusalReason('bad_signature'));
  });

  it('refuses an approval signed by another key', async () => {
    const otherDir = await mkdtemp(path.join(os.tmpdir(), 'svc-approvals-other-'));
    try {
      const otherKey = await loadOrCreateSigningKey(otherDir);
      const rogue = new ApprovalService({ repository: repo, key: otherKey, audit, activeBundle: () => BUNDLE, workUnitTenant: async (id) => WORK_UNIT_TENANTS.get(id), now: () => clock });
      const { token } = await rogue.create(approver, { tenant: 'acme', contract: 'semantic' });
      await assert.rejects(service.assertApproved(executor, scope, token), refusalReason('bad_signature'));
    } finally {
      await rm(otherDir, { recursive: true, force: true });
    }
  });

  it('refuses garbage as malformed', async () => {
    await assert.rejects(service.assertApproved(executor, scope, 'not-a-token'), refusalReason('malformed'));
  });

  it('refuses a validly signed approval the server has no record of', async () => {
    const { token, approval } = await issue();
    repo.rows.delete(approval.id);
    await assert.rejects(service.assertApproved(executor, scope, token), refusalReason('unknown'));
  });

  it('hides other tenants approvals from a tenant-bound reader', async () => {
    const { approval } = await issue({ tenant: 'globex', work_unit_id: OTHER_WU });
    const reader = { principal: makePrincipal('rita', ['reader'], 'acme') };
    await assert.rejects(service.get(reader, approval.id), (e: SvcError) => e.code === 'not_found');
    const listed = await service.list(reader, {});
    assert.ok(listed.length > 0);
    assert.ok(listed.every((a) => a.tenant === 'acme'));
  });
});
