/** Storage contract for approvals and admin switches, run unchanged on SQLite and PostgreSQL. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newId } from '../../src/core/ids.ts';
import type { ApprovalRecord } from '../../src/svc/approvals/approval-record.ts';
import { DEFAULT_SWITCHES } from '../../src/svc/rollout/switches.ts';
import { engines } from '../helpers/engines.ts';
import { useStore } from '../helpers/store-fixture.ts';

function approval(tenant: string, over: Partial<ApprovalRecord> = {}): ApprovalRecord {
  return {
    id: newId('apr'), tenant, contract: 'semantic', bundle_id: 'pb_01aaaaaaaaaaaaaaaaaaaaaaaa', bundle_hash: 'a'.repeat(64), work_unit_id: null, single_use: true,
    actor: 'ann', reason: null, created_at: '2030-01-01T00:00:00.000Z', expires_at: '2030-01-01T00:15:00.000Z', revoked_at: null, revoked_by: null, used_at: null, ...over,
  };
}

for (const engine of engines()) {
  describe(`approvals and switches storage on ${engine.name}`, { skip: engine.skip }, () => {
    const fx = useStore(engine.name);

    test('an approval round-trips with its boolean and nullable fields', async () => {
      const a = approval('acme', { work_unit_id: 'wu_01bbbbbbbbbbbbbbbbbbbbbbbb', single_use: false, reason: 'incident 42' });
      await fx.store.approvals.insert(a);
      assert.deepEqual(await fx.store.approvals.get(a.id), a);
    });

    test('lists by tenant in id order with a cursor', async () => {
      const ids = [];
      for (let i = 0; i < 3; i++) {
        const a = approval('listco');
        ids.push(a.id);
        await fx.store.approvals.insert(a);
      }
      await fx.store.approvals.insert(approval('otherco'));
      assert.deepEqual((await fx.store.approvals.list({ tenant: 'listco', limit: 10 })).map((a) => a.id), ids);
      assert.deepEqual((await fx.store.approvals.list({ tenant: 'listco', limit: 10, after: ids[0] })).map((a) => a.id), ids.slice(1));
    });

    test('revoke happens once', async () => {
      const a = approval('acme');
      await fx.store.approvals.insert(a);
      assert.equal(await fx.store.approvals.revoke(a.id, 'olga', '2030-01-01T00:01:00.000Z'), true);
      assert.equal(await fx.store.approvals.revoke(a.id, 'olga', '2030-01-01T00:02:00.000Z'), false);
      assert.equal((await fx.store.approvals.get(a.id))?.revoked_by, 'olga');
    });

    test('exactly one of many concurrent consumes of a single-use approval wins', async () => {
      const a = approval('acme');
      await fx.store.approvals.insert(a);
      const results = await Promise.all(Array.from({ length: 8 }, () => fx.store.approvals.consume(a.id, '2030-01-01T00:01:00.000Z')));
      assert.equal(results.filter(Boolean).length, 1);
    });

    test('switches are absent until saved, then round-trip and update in place', async () => {
      assert.equal(await fx.store.switches.load(), undefined);
      const first = { ...DEFAULT_SWITCHES, force_exact_contract: true, disabled_reducers: ['zstd'], updated_at: '2030-01-01T00:00:00.000Z', updated_by: 'olga' };
      await fx.store.switches.save(first);
      assert.deepEqual(await fx.store.switches.load(), first);
      const second = { ...first, force_exact_contract: false, policy_bundle: { name: 'strict', version: null } };
      await fx.store.switches.save(second);
      assert.deepEqual(await fx.store.switches.load(), second);
    });
  });
}
