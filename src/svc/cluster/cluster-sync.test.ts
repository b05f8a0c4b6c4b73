import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { useStore } from '../../../test/helpers/store-fixture.ts';
import { makePrincipal } from '../auth/principal.ts';
import { LedgerAppender } from '../ledger/appender.ts';
import { silentOpLog } from '../logs/oplog.ts';
import { PolicyService } from '../policy/policy-service.ts';
import { Switchboard } from '../rollout/switchboard.ts';
import { ClusterSync } from './cluster-sync.ts';

const publisher = { principal: makePrincipal('pat', ['policy-publisher']) };
const admin = { principal: makePrincipal('ada', ['admin']) };
const bundle = (version: string) => `name: default\nversion: "${version}"\npolicies:\n  - id: pol_deny_gzip\n    effect: deny\n    match: { action: gzip }\n`;

/** One "process": its own state dir, policy service and switchboard, over the shared store. */
async function processOn(fx: ReturnType<typeof useStore>, ledger: LedgerAppender) {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'svc-sync-'));
  const policy = await PolicyService.open({ stateDir, audit: ledger, documents: fx.store.policyDocuments });
  const switchboard = await Switchboard.open({ store: fx.store.switches, audit: ledger, switchPolicyBundle: (t) => policy.switchBundle(t?.name ?? 'default', t?.version ?? undefined) });
  const sync = new ClusterSync({ ledgerRepo: fx.store.ledger, policy, switchboard, log: silentOpLog(), intervalMs: 0 });
  return { policy, switchboard, sync };
}

describe('cluster sync: processes adopt each other\'s policy and switch changes', () => {
  const fx = useStore('sqlite');

  test('a bundle published through A is in force on B after one tick, with the same id; switches follow', async () => {
    const ledger = new LedgerAppender(fx.store.ledger);
    const a = await processOn(fx, ledger);
    const b = await processOn(fx, ledger);
    await b.sync.start();
    const published = await a.policy.publish(publisher, 'default', bundle('v1'));
    assert.notEqual(b.policy.engine.activeBundle().hash, published.bundle.hash, 'not before the tick');
    assert.equal(await b.sync.tick(), 1);
    assert.deepEqual(b.policy.engine.activeBundle(), published.bundle);
    assert.equal((await b.policy.store.readActive('default')).status, 'ok', 'written to B\'s working copy too');

    await a.switchboard.apply(admin, { switch: 'bypass_optimisation', enabled: true });
    assert.equal(b.switchboard.current().bypass_optimisation, false);
    await b.sync.tick();
    assert.equal(b.switchboard.current().bypass_optimisation, true);

    // A process started later begins with the newest bundle.
    const c = await processOn(fx, ledger);
    assert.notEqual(c.policy.engine.activeBundle().hash, published.bundle.hash);
    await c.sync.start();
    assert.equal(c.policy.engine.activeBundle().hash, published.bundle.hash);
    assert.equal(c.sync.adopted, 1);
  });

  test('a change that cannot be adopted is logged and skipped, never a failed start', async () => {
    const ledger = new LedgerAppender(fx.store.ledger);
    // An event announcing a bundle whose document was never shared (written by a build before migration 096).
    await ledger.append({ type: 'policy.bundle.published', actor: 'old-build', payload: { name: 'default', version: 'v0', bundle_hash: 'f'.repeat(64), in_force: true } });
    const d = await processOn(fx, ledger);
    const before = d.policy.engine.activeBundle();
    await d.sync.start();
    assert.equal(d.sync.failed, 1);
    assert.deepEqual(d.policy.engine.activeBundle(), before, 'keeps the bundle it has');
  });
});
