/**
 * Storage contract for the foundation repositories (work units, plans,
 * ledger, migrations), run unchanged on SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newId } from '../../src/core/ids.ts';
import { listMigrations, migrate } from '../../src/svc/store/migrate.ts';
import type { WorkUnitRecord } from '../../src/svc/work-units/work-unit.ts';
import { engines } from '../helpers/engines.ts';
import { useStore } from '../helpers/store-fixture.ts';

function workUnit(tenant: string, overrides: Partial<WorkUnitRecord> = {}): WorkUnitRecord {
  const now = new Date().toISOString();
  return {
    id: newId('wu'), tenant, kind: 'byte_object', logical_ref: 's3://bucket/key', requested_contract: 'exact_bytes', state: 'created',
    metadata: { owner: 'alice' }, payload: { kind: 'binary', bytes: new Uint8Array([0, 1, 2, 255]) }, payload_size: 4, payload_sha256: 'ab'.repeat(32),
    created_by: 'tester', trace_id: 'trace', last_plan_id: null, manifest_id: null, created_at: now, updated_at: now, ...overrides,
  };
}

for (const engine of engines()) {
  describe(`storage contract on ${engine.name}`, { skip: engine.skip }, () => {
    const fx = useStore(engine.name);

    test('migrations are recorded and applying them again changes nothing', async () => {
      const again = await migrate(fx.store.db);
      assert.deepEqual(again.applied, []);
      assert.equal(again.current, listMigrations(fx.store.db.dialect).at(-1)!.version);
    });

    test('a work unit round-trips with its binary payload and metadata', async () => {
      const wu = workUnit('acme');
      await fx.store.workUnits.insert(wu);
      const got = await fx.store.workUnits.get(wu.id);
      assert.ok(got);
      assert.deepEqual(got.payload.kind === 'binary' ? [...got.payload.bytes] : null, [0, 1, 2, 255]);
      assert.deepEqual(got.metadata, { owner: 'alice' });
      assert.equal(got.state, 'created');
    });

    test('a JSON payload round-trips', async () => {
      const wu = workUnit('acme', { kind: 'prompt_request', payload: { kind: 'json', value: { messages: [{ role: 'user', content: 'hi' }] } } });
      await fx.store.workUnits.insert(wu);
      const got = await fx.store.workUnits.get(wu.id);
      assert.deepEqual(got?.payload, { kind: 'json', value: { messages: [{ role: 'user', content: 'hi' }] } });
    });

    test('work unit updates change state and links only', async () => {
      const wu = workUnit('acme');
      await fx.store.workUnits.insert(wu);
      await fx.store.workUnits.update(wu.id, { state: 'planned', last_plan_id: 'pl_x' });
      const got = await fx.store.workUnits.get(wu.id);
      assert.equal(got?.state, 'planned');
      assert.equal(got?.last_plan_id, 'pl_x');
      assert.equal(got?.manifest_id, null);
    });

    test('work unit lists are filtered by tenant and paginated by id', async () => {
      const ids = [];
      for (let i = 0; i < 3; i++) {
        const wu = workUnit('paged');
        ids.push(wu.id);
        await fx.store.workUnits.insert(wu);
      }
      await fx.store.workUnits.insert(workUnit('other'));
      const first = await fx.store.workUnits.list({ tenant: 'paged', limit: 2 });
      assert.deepEqual(first.map((w) => w.id), ids.slice(0, 2));
      const second = await fx.store.workUnits.list({ tenant: 'paged', after: first[1]!.id, limit: 2 });
      assert.deepEqual(second.map((w) => w.id), ids.slice(2));
    });

    test('plans persist and list by tenant and work unit', async () => {
      const wu = workUnit('plans');
      await fx.store.workUnits.insert(wu);
      const plan = {
        plan_id: newId('pl'), work_unit_id: wu.id, tenant: 'plans', kind: 'byte_object', contract: 'exact_bytes', mode: 'enforce' as const,
        actions: [{ type: 'hash', required: true, risk: 'low' as const, class: 'exact' as const }], denied_actions: [], obligations: [], risk: 'low' as const,
        expected: { stored_bytes_reduction: 0.5, basis: 'zstd_sample', sample_bytes: 10 }, policy_bundle_id: 'pb_x', policy_bundle_version: '1', policy_bundle_hash: 'h',
        trace_id: 't', created_at: new Date().toISOString(),
      };
      await fx.store.plans.insert(plan, 'tester');
      assert.deepEqual(await fx.store.plans.get(plan.plan_id), plan);
      assert.deepEqual((await fx.store.plans.list({ tenant: 'plans', limit: 10 })).map((p) => p.plan_id), [plan.plan_id]);
      assert.deepEqual((await fx.store.plans.list({ workUnitId: wu.id, limit: 10 })).map((p) => p.plan_id), [plan.plan_id]);
      assert.equal((await fx.store.plans.list({ tenant: 'nobody', limit: 10 })).length, 0);
    });

    test('ledger batches extend one chain with consecutive sequence numbers', async () => {
      const before = (await fx.store.ledger.head())?.seq ?? 0;
      const a = await fx.store.ledger.appendBatch([{ type: 't.a', actor: 'x', tenant: 'l' }, { type: 't.b', actor: 'x', tenant: 'l', payload: { n: 1 } }]);
      const b = await fx.store.ledger.appendBatch([{ type: 't.a', actor: 'x', tenant: 'm' }]);
      assert.deepEqual([...a, ...b].map((r) => Number(r.seq)), [before + 1, before + 2, before + 3]);
      assert.equal(a[1]!.prev_hash, a[0]!.hash);
      assert.equal(b[0]!.prev_hash, a[1]!.hash);
      assert.equal((await fx.store.ledger.head())?.hash, b[0]!.hash);
    });

    test('ledger queries filter by tenant, type and time and page by sequence', async () => {
      await fx.store.ledger.appendBatch([
        { type: 'q.one', actor: 'x', tenant: 'qt' },
        { type: 'q.two', actor: 'x', tenant: 'qt' },
        { type: 'q.one', actor: 'x', tenant: 'qother' },
      ]);
      const one = await fx.store.ledger.query({ tenant: 'qt', eventTypes: ['q.one'], limit: 10 });
      assert.deepEqual(one.map((r) => [r.tenant, r.type]), [['qt', 'q.one']]);
      const all = await fx.store.ledger.query({ tenant: 'qt', limit: 1 });
      assert.equal(all.length, 1);
      const next = await fx.store.ledger.query({ tenant: 'qt', afterSeq: Number(all[0]!.seq), limit: 10 });
      assert.deepEqual(next.map((r) => r.type), ['q.two']);
      const future = await fx.store.ledger.query({ tenant: 'qt', from: new Date(Date.now() + 60_000).toISOString(), limit: 10 });
      assert.equal(future.length, 0);
    });

    test('a failed transaction leaves nothing behind', async () => {
      const wu = workUnit('tx');
      await assert.rejects(
        fx.store.db.transaction(async (tx) => {
          await tx.run('UPDATE work_units SET state = $1 WHERE id = $2', ['failed', 'none']);
          await new (await import('../../src/svc/store/repositories/work-units.ts')).WorkUnitRepository(tx).insert(wu);
          throw new Error('boom');
        }),
        /boom/,
      );
      assert.equal(await fx.store.workUnits.get(wu.id), undefined);
    });
  });
}
