/**
 * The AI record journal (docs/decisions/141): an AI request's work unit,
 * plan and compute manifest, written through `store.aiRecords`, are readable
 * through their repositories as soon as the write committed — journalled on
 * SQLite and moved on the first read, written directly on PostgreSQL — and a
 * journal left by a crash is moved when the store opens again.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { newId } from '../../src/core/ids.ts';
import type { AiComputeManifest } from '../../src/svc/ai/gateway/ports.ts';
import type { Plan } from '../../src/svc/plans/plan.ts';
import type { AiRecordSet } from '../../src/svc/store/repositories/ai-record-journal.ts';
import { openStore } from '../../src/svc/store/store.ts';
import { engineTarget, engines } from '../helpers/engines.ts';
import { useStore } from '../helpers/store-fixture.ts';

function recordSet(tenant: string): AiRecordSet {
  const now = new Date().toISOString();
  const wu = newId('wu');
  const pl = newId('pl');
  const mf = newId('mf');
  const plan: Plan = {
    plan_id: pl, work_unit_id: wu, tenant, kind: 'prompt_request', contract: 'exact_bytes', mode: 'enforce',
    actions: [{ type: 'model_route', required: true, risk: 'low', class: 'operation' }], denied_actions: [], obligations: [], risk: 'low',
    expected: { stored_bytes_reduction: 0, basis: 'none', sample_bytes: 0 }, policy_bundle_id: 'pb_x', policy_bundle_version: '1', policy_bundle_hash: 'h', trace_id: 't', created_at: now,
  };
  const manifest = {
    manifest_id: mf, work_unit_id: wu, plan_id: pl, tenant, kind: 'ai_chat_completion', contract: 'exact_bytes', mode: 'enforce', policy_bundle_id: 'pb_x', trace_id: 't',
    actor: 'tester', status: 'completed', route: 'mock/small', requested_model: 'small', cache: 'miss', cache_key: null, stream: { requested: false, mode: null },
    verifier: { name: 'chat_completion@1', passed: true, failures: [] }, result: { fallback_used: false, fallback_reason: null, error_code: null, output_sha256: 'ab'.repeat(32) },
    tokens: { prompt: 1, completion: 1, avoided: 0, removed_by_context_compile: 0, context_before: null, context_after: null },
    routing: { task_class: null, size_class: 'small', baseline_size_class: 'small', large_model_calls: 0, large_model_calls_avoided: 0, switched_by: [] },
    estimated_cost: null, latency_ms: { total: 1, upstream: 1, overhead: 0 }, created_at: now,
  } as unknown as AiComputeManifest;
  return {
    work_unit: {
      id: wu, tenant, kind: 'prompt_request', logical_ref: 'ai://chat/small', requested_contract: 'exact_bytes', state: 'executed', metadata: { surface: 'ai_gateway' },
      payload: { kind: 'none' }, payload_size: 0, payload_sha256: null, created_by: 'tester', trace_id: 't', last_plan_id: pl, manifest_id: mf, created_at: now, updated_at: now,
    },
    plan,
    plan_created_by: 'tester',
    manifest,
  };
}

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
      }
      assert.equal((await fx.store.workUnits.get(r.work_unit.id))?.manifest_id, r.manifest.manifest_id);
      assert.deepEqual((await fx.store.plans.list({ workUnitId: r.work_unit.id, limit: 10 })).map((p) => p.plan_id), [r.plan.plan_id]);
      assert.equal((await fx.store.aiManifests.byWorkUnit(r.work_unit.id))?.manifest_id, r.manifest.manifest_id);
      const listed = await fx.store.aiManifests.list({ tenant: 'acme', limit: 10 });
      assert.deepEqual(listed.map((m) => [m.manifest.manifest_id, m.logical_ref]), [[r.manifest.manifest_id, 'ai://chat/small']]);
      if (engine.name === 'sqlite') assert.equal((await fx.store.db.get<{ n: number }>('SELECT COUNT(*) AS n FROM ai_record_journal'))?.n, 0);
    });

    test('a record that cannot be written is set aside and blocks neither the others nor a reader', async () => {
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
