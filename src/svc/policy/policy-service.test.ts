import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { AuditRecorder } from '../../../test/policy/support/audit-recorder.ts';
import { makePrincipal } from '../auth/principal.ts';
import { SvcError } from '../errors.ts';
import { BUILTIN_BUNDLE_ID } from './default-bundle.ts';
import { PolicyService } from './policy-service.ts';

const publisher = { principal: makePrincipal('pat', ['policy-publisher']), traceId: 'tr_test' };
const writer = { principal: makePrincipal('wendy', ['writer'], 'acme') };

const bundleText = (version: string, effect = 'deny') => `name: default
version: "${version}"
policies:
  - id: pol_zstd
    effect: ${effect}
    match: { action: zstd }
`;

describe('PolicyService', () => {
  let dir: string;
  before(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'svc-policy-'));
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  async function open(sub: string, audit = new AuditRecorder()) {
    const service = await PolicyService.open({ stateDir: path.join(dir, sub), audit });
    return { service, audit };
  }

  it('uses the built-in bundle when none is published', async () => {
    const { service } = await open('fresh');
    assert.equal(service.engine.activeBundle().id, BUILTIN_BUNDLE_ID);
    assert.deepEqual(service.startup, { source: 'builtin', reason: 'none_published' });
  });

  it('writes the built-in bundle to disk at first start, so it reloads and a restart keeps it', async () => {
    const { service, audit } = await open('fresh-reload');
    const r = await service.reload(publisher, 'default');
    assert.equal(r.reloaded, true, JSON.stringify(r));
    assert.equal(r.reloaded && r.bundle.id, BUILTIN_BUNDLE_ID);
    assert.equal(r.reloaded && r.changed, false);
    assert.equal(audit.ofType('policy.bundle.reloaded').length, 1);
    const reopened = await open('fresh-reload');
    assert.equal(reopened.service.engine.activeBundle().id, BUILTIN_BUNDLE_ID);
    const published = await reopened.service.publish(publisher, 'default', bundleText('2'));
    assert.equal(published.in_force, true);
  });

  it('publishes a bundle, puts it in force and records the publish', async () => {
    const { service, audit } = await open('publish');
    const r = await service.publish(publisher, 'default', bundleText('1'));
    assert.equal(r.created, true);
    assert.equal(r.in_force, true);
    assert.equal(service.engine.activeBundle().hash, r.bundle.hash);
    const decision = service.evaluate(writer, { work_unit_kind: 'byte_object', contract: 'semantic', mode: 'enforce', action: 'zstd' });
    assert.equal(decision.allow, false);
    const [event] = audit.ofType('policy.bundle.published');
    assert.equal(event?.actor, 'pat');
    assert.equal(event?.payload['bundle_hash'], r.bundle.hash);
    assert.equal(event?.payload['version'], '1');
    const reopened = await open('publish');
    assert.equal(reopened.service.engine.activeBundle().id, r.bundle.id, 'the published bundle survives a restart with its id');
  });

  it('treats republishing identical content as idempotent and keeps the id', async () => {
    const { service } = await open('idempotent');
    const first = await service.publish(publisher, 'default', bundleText('1'));
    const again = await service.publish(publisher, 'default', bundleText('1'));
    assert.equal(again.created, false);
    assert.equal(again.bundle.id, first.bundle.id);
  });

  it('refuses different content under a published version and records the refusal', async () => {
    const { service, audit } = await open('conflict');
    await service.publish(publisher, 'default', bundleText('1'));
    await assert.rejects(service.publish(publisher, 'default', bundleText('1', 'allow')), (e: SvcError) => e.code === 'conflict');
    assert.equal(audit.ofType('policy.bundle.publish_refused')[0]?.payload['reason'], 'version_conflict');
  });

  it('refuses a publish without the publisher role and records who tried', async () => {
    const { service, audit } = await open('forbidden');
    await assert.rejects(service.publish(writer, 'default', bundleText('1')), (e: SvcError) => e.code === 'forbidden');
    const [event] = audit.ofType('policy.bundle.publish_refused');
    assert.equal(event?.actor, 'wendy');
    assert.equal(event?.payload['reason'], 'forbidden');
    assert.equal(service.engine.activeBundle().id, BUILTIN_BUNDLE_ID);
  });

  it('refuses an invalid bundle with line-numbered errors', async () => {
    const { service, audit } = await open('invalid');
    await assert.rejects(service.publish(publisher, 'default', bundleText('1', 'maybe')), (e: SvcError) => {
      const errors = e.details?.['errors'] as Array<{ line: number }>;
      return e.code === 'invalid_request' && errors[0]?.line === 5;
    });
    assert.equal(audit.ofType('policy.bundle.publish_refused')[0]?.payload['reason'], 'invalid');
  });

  it('reloads an edited active bundle and records version and hash', async () => {
    const { service, audit } = await open('reload');
    const published = await service.publish(publisher, 'default', bundleText('1'));
    await writeFile(service.store.activePath('default'), bundleText('2', 'allow'));
    const r = await service.reload(publisher, 'default');
    assert.equal(r.reloaded, true);
    if (!r.reloaded) return;
    assert.equal(r.changed, true);
    assert.notEqual(r.bundle.id, published.bundle.id);
    assert.equal(service.engine.activeBundle().version, '2');
    const [event] = audit.ofType('policy.bundle.reloaded');
    assert.equal(event?.payload['version'], '2');
    assert.equal(event?.payload['bundle_hash'], r.bundle.hash);
    const history = await readdir(path.join(service.store.root, 'default', 'history'));
    assert.equal(history.length, 3, 'the built-in bundle written at first start, version 1 and version 2');
  });

  it('keeps the old bundle when the file on disk is broken and says why', async () => {
    const { service, audit } = await open('broken');
    const published = await service.publish(publisher, 'default', bundleText('1'));
    await writeFile(service.store.activePath('default'), bundleText('2').replace('effect: deny', 'effect: nope'));
    const r = await service.reload(publisher, 'default');
    assert.equal(r.reloaded, false);
    if (r.reloaded) return;
    assert.equal(r.kept.id, published.bundle.id);
    assert.equal(r.errors[0]?.line, 5);
    assert.equal(service.engine.activeBundle().id, published.bundle.id);
    assert.equal(audit.ofType('policy.bundle.reload_failed').length, 1);
    assert.equal(audit.ofType('policy.bundle.reloaded').length, 0);
  });

  it('refuses a reload of an edited file that reuses a published version', async () => {
    const { service } = await open('reuse');
    await service.publish(publisher, 'default', bundleText('1'));
    await writeFile(service.store.activePath('default'), bundleText('1', 'allow'));
    const r = await service.reload(publisher, 'default');
    assert.equal(r.reloaded, false);
    assert.match(r.reloaded ? '' : (r.errors[0]?.message ?? ''), /already published/);
  });

  it('switches back to an earlier version (rollback)', async () => {
    const { service } = await open('rollback');
    const v1 = await service.publish(publisher, 'default', bundleText('1'));
    await service.publish(publisher, 'default', bundleText('2', 'allow'));
    const ref = await service.switchBundle('default', '1');
    assert.equal(ref.id, v1.bundle.id);
    assert.equal(service.engine.activeBundle().hash, v1.bundle.hash);
  });

  it('publishes another bundle without putting it in force until switched', async () => {
    const { service } = await open('two-names');
    const other = await service.publish(publisher, 'strict', bundleText('1').replace('name: default', 'name: strict'));
    assert.equal(other.in_force, false);
    assert.equal(service.engine.activeBundle().id, BUILTIN_BUNDLE_ID);
    await service.switchBundle('strict');
    assert.equal(service.activeBundleName, 'strict');
    const list = await service.listBundles(publisher);
    assert.deepEqual(list.map((b) => [b.name, b.in_force]), [['default', false], ['strict', true]], 'the built-in default written at first start stays listed (and can be switched back to)');
  });

  it('binds evaluation to the principal tenant', () => {
    return open('tenant').then(({ service }) => {
      assert.throws(() => service.evaluate(writer, { tenant: 'globex', work_unit_kind: 'byte_object', contract: 'semantic', mode: 'enforce', action: 'zstd' }), (e: SvcError) => e.code === 'tenant_forbidden');
      const input = service.toInput(writer, { work_unit_kind: 'byte_object', contract: 'semantic', mode: 'enforce', action: 'zstd' });
      assert.equal(input.tenant, 'acme');
      assert.equal(input.principal.actor, 'wendy');
    });
  });

  it('starts on the built-in bundle and reports why when the file on disk is invalid', async () => {
    const { service } = await open('bad-at-start');
    await service.publish(publisher, 'default', bundleText('1'));
    await writeFile(service.store.activePath('default'), 'name: default\n');
    const reopened = await open('bad-at-start');
    assert.equal(reopened.service.engine.activeBundle().id, BUILTIN_BUNDLE_ID);
    assert.equal(reopened.service.startup.source === 'builtin' && reopened.service.startup.reason, 'invalid_on_disk');
  });
});
