/**
 * The AI record journal (docs/decisions/141): an AI request's work unit,
 * plan and compute manifest, written through `store.aiRecords`, are readable
 * through their repositories as soon as the write committed — journalled on
 * SQLite and moved on the first read, written directly on PostgreSQL — and a
 * journal left by a crash is moved when the store opens again.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { AiRecordFailure } from '../../src/svc/store/repositories/ai-record-journal.ts';
import { openStore } from '../../src/svc/store/store.ts';
import { recordSet } from '../helpers/ai-record-set.ts';
import { engineTarget, engines } from '../helpers/engines.ts';
import { useStore } from '../helpers/store-fixture.ts';

for (const engine of engines()) {
  describe(`AI record journal on ${engine.name}`, { skip: engine.skip }, () => {
    const fx = useStore(engine.name);

    test('records are readable through every repository as soon as their write committed', async () => {
      const r = recordSet('acme');
      await fx.store.db.transaction((tx) => fx.store.aiRecords.write(tx, r));
      fx.store.aiRecords.committed();
      if (engine.name === 'sqlite') {
        // Journalled: one row, not yet in the tables.
        assert.equal((await fx.store.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM ai_record_journal'))?.n, 1);
        assert.equal((await fx.store.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM work_units WHERE id = $1', [r.work_unit.id]))?.n, 0);
        assert.deepEqual(await fx.store.aiRecords.status(), { pending: 1, failed: 0 });
      }
      assert.equal((await fx.store.workUnits.get(r.work_unit.id))?.manifest_id, r.manifest.manifest_id);
      assert.deepEqual((await fx.store.plans.list({ workUnitId: r.work_unit.id, limit: 10 })).map((p) => p.plan_id), [r.plan.plan_id]);
      assert.equal((await fx.store.aiManifests.byWorkUnit(r.work_unit.id))?.manifest_id, r.manifest.manifest_id);
      const listed = await fx.store.aiManifests.list({ tenant: 'acme', limit: 10 });
      assert.deepEqual(listed.map((m) => [m.manifest.manifest_id, m.logical_ref]), [[r.manifest.manifest_id, 'ai://chat/small']]);
      if (engine.name === 'sqlite') assert.equal((await fx.store.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM ai_record_journal'))?.n, 0);
    });

    test('a record that cannot be written is set aside, reported to the watcher, counted, and blocks neither the others nor a reader', async () => {
      const setAside: AiRecordFailure[] = [];
      fx.store.aiRecords.watch({ rowSetAside: (f) => setAside.push(f), moveFailed: (err) => assert.fail(err) });
      const good = recordSet('globex');
      const clash = recordSet('globex');
      clash.work_unit.id = good.work_unit.id; // the same work unit twice: the second cannot be inserted
      const after = recordSet('globex');
      for (const r of [good, clash, after]) {
        try {
          await fx.store.db.transaction((tx) => fx.store.aiRecords.write(tx, r));
          fx.store.aiRecords.committed();
        } catch {
          // PostgreSQL writes directly: the clash fails its own transaction, as before the journal.
        }
      }
      assert.ok(await fx.store.workUnits.get(good.work_unit.id));
      assert.ok(await fx.store.aiManifests.get(after.manifest.manifest_id));
      assert.equal(await fx.store.aiManifests.get(clash.manifest.manifest_id), undefined);
      if (engine.name === 'sqlite') {
        const parked = await fx.store.db.all<{ failed: string }>('SELECT failed FROM ai_record_journal');
        assert.equal(parked.length, 1);
        assert.match(parked[0]!.failed, /UNIQUE|constraint/i);
        assert.equal(setAside.length, 1);
        assert.match(setAside[0]!.error, /UNIQUE|constraint/i);
        assert.deepEqual(await fx.store.aiRecords.status(), { pending: 0, failed: 1 });
      } else {
        assert.deepEqual(setAside, [], 'PostgreSQL has no journal: nothing is ever set aside');
        assert.deepEqual(await fx.store.aiRecords.status(), { pending: 0, failed: 0 });
      }
    });
  });
}

describe('AI record journal after a crash (sqlite)', () => {
  test('rows left in the journal move into their tables when the store opens again', async () => {
    const target = await engineTarget('sqlite');
    try {
      const r = recordSet('initech');
      const first = await openStore(target);
      await first.db.transaction((tx) => first.aiRecords.write(tx, r));
      // The process dies here: the database closes without the journal being moved.
      await first.db.close();
      const second = await openStore(target);
      try {
        assert.equal((await second.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM ai_record_journal'))?.n, 0);
        assert.equal((await second.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM work_units WHERE id = $1', [r.work_unit.id]))?.n, 1);
        assert.equal((await second.aiManifests.get(r.manifest.manifest_id))?.work_unit_id, r.work_unit.id);
      } finally {
        await second.close();
      }
    } finally {
      await target.cleanup();
    }
  });
});
