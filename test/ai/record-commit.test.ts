/**
 * The composed recorder on real storage: an AI request's work unit, plan,
 * compute manifest, ledger events and cache entry commit in ONE transaction
 * of the ledger's group commit, shared by concurrent requests; a unit that
 * cannot be written fails alone and leaves nothing behind.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { SvcAiRecorder } from '../../src/svc/ai/compose/svc-ai-recorder.ts';
import { GroupCommittedExactCacheStore } from '../../src/svc/ai/compose/group-committed-cache-stores.ts';
import type { AiRequestContext, AiWorkUnitStart } from '../../src/svc/ai/gateway/ports.ts';
import { RequestRun } from '../../src/svc/ai/gateway/request-run.ts';
import { makePrincipal } from '../../src/svc/auth/principal.ts';
import type { ExactCacheEntry } from '../../src/svc/cache/exact/exact-cache-store.ts';
import { LedgerAppender } from '../../src/svc/ledger/appender.ts';
import type { Db } from '../../src/svc/store/db.ts';
import { CacheEntryRepository } from '../../src/svc/store/repositories/cache-entries.ts';
import { LedgerRepository } from '../../src/svc/store/repositories/ledger.ts';
import type { Store } from '../../src/svc/store/store.ts';
import { engines } from '../helpers/engines.ts';
import { type EngineStore, openEngineStore } from '../helpers/engine-store.ts';

const BUNDLE = { id: 'pb_test', name: 'builtin', version: '1', hash: 'a'.repeat(64) };
const ctx: AiRequestContext = { principal: makePrincipal('recorder-test', ['writer'], 'acme'), traceId: 'tr_record' };

function startOf(run: RequestRun): AiWorkUnitStart {
  return {
    work_unit_id: run.work_unit_id,
    manifest_id: run.manifest_id,
    tenant: run.tenant,
    namespace: null,
    kind: run.kind,
    logical_ref: 'ai://chat.completions/mock-small',
    contract: run.contract,
    mode: run.mode,
    policy_bundle: BUNDLE,
    trace_id: run.traceId,
    actor: run.actor,
    plan: { plan_id: run.plan_id, contract: run.contract, mode: run.mode, actions: [], risk: 'low', route: 'mock/mock-small', expected: { stored_bytes_reduction: 0 }, denied_actions: [], rollout: null },
  };
}

function newRun(): RequestRun {
  return new RequestRun({ kind: 'ai_chat_completion', tenant: 'acme', traceId: 'tr_record', actor: 'recorder-test', policyBundleId: BUNDLE.id, requestedModel: 'mock-small', streamRequested: false });
}

function cacheEntry(key: string): ExactCacheEntry {
  const now = Date.now();
  return { key, tenant: 'acme', value: { text: key }, verification: { type: 'non_empty_text' }, verifier: 'non_empty_text@1', origin: 'gateway', created_at: new Date(now).toISOString(), expires_at: new Date(now + 60_000).toISOString() };
}

/** The store's Db with its transactions counted. */
function countingTransactions(db: Db): { db: Db; count: () => number } {
  let n = 0;
  const proxy = new Proxy(db, {
    get(target, prop) {
      if (prop === 'transaction') {
        return <T>(fn: (tx: Db) => Promise<T>) => {
          n++;
          return target.transaction(fn);
        };
      }
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
  return { db: proxy, count: () => n };
}

for (const engine of engines()) {
  describe(`AI records through the ledger's group commit on ${engine.name}`, { skip: engine.skip }, () => {
    let opened: EngineStore | undefined;
    let store: Store;
    let counted: ReturnType<typeof countingTransactions>;
    let ledger: LedgerAppender;
    before(async () => {
      opened = await openEngineStore(engine.name);
      store = opened.store;
      counted = countingTransactions(store.db);
      ledger = new LedgerAppender(new LedgerRepository(counted.db));
    });
    after(async () => {
      await ledger?.drained();
      await opened?.close();
    });

    test('concurrent requests share commits, and every row, event and cache entry is there when they resolve', async () => {
      const recorder = new SvcAiRecorder(ledger);
      const cache = new GroupCommittedExactCacheStore(store.cacheEntries, ledger);
      const runs = Array.from({ length: 24 }, newRun);
      const before = counted.count();
      await Promise.all(
        runs.map(async (run, i) => {
          await recorder.begin(ctx, startOf(run));
          const stored = cache.put(cacheEntry(`ck_share_${i}`));
          await recorder.complete(ctx, run.toManifest('completed', null));
          await stored;
        }),
      );
      const transactions = counted.count() - before;
      assert.ok(transactions < runs.length, `${runs.length} requests used ${transactions} transactions`);
      for (const [i, run] of runs.entries()) {
        assert.equal((await store.aiManifests.get(run.manifest_id))?.status, 'completed');
        assert.equal((await store.workUnits.get(run.work_unit_id))?.state, 'executed');
        assert.equal((await store.plans.get(run.plan_id))?.work_unit_id, run.work_unit_id);
        assert.deepEqual((await store.cacheEntries.get('acme', `ck_share_${i}`))?.value, { text: `ck_share_${i}` });
      }
      const events = await store.ledger.query({ tenant: 'acme', limit: 10_000 });
      const ids = new Set(runs.map((r) => r.work_unit_id));
      const mine = events.filter((e) => e.work_unit_id !== null && ids.has(e.work_unit_id));
      // Two events per request: the plan and the compute manifest, which also carries the request's summary (decision 137).
      assert.equal(mine.length, runs.length * 2);
      assert.deepEqual(new Set(mine.map((e) => e.type)), new Set(['plan.created', 'manifest.written']));
    });

    test('a unit that cannot be written fails alone: its rows and events are rolled back, the others commit', async () => {
      const bad = ledger.commit({
        write: async (tx) => {
          await new CacheEntryRepository(tx).put(cacheEntry('ck_rolled_back'));
          throw new Error('constraint violated');
        },
        events: [{ type: 'test.bad_unit', tenant: 'acme', actor: 'recorder-test' }],
      });
      const good = [1, 2].map((n) =>
        ledger.commit({ write: (tx) => new CacheEntryRepository(tx).put(cacheEntry(`ck_good_${n}`)), events: [{ type: 'test.good_unit', tenant: 'acme', actor: 'recorder-test' }] }),
      );
      await assert.rejects(bad, /constraint violated/);
      const results = await Promise.all(good);
      assert.deepEqual(results.map((r) => r.events.length), [1, 1]);
      assert.equal(await store.cacheEntries.get('acme', 'ck_rolled_back'), undefined);
      assert.ok(await store.cacheEntries.get('acme', 'ck_good_1'));
      const types = (await store.ledger.query({ tenant: 'acme', eventTypes: ['test.bad_unit', 'test.good_unit'], limit: 100 })).map((e) => e.type);
      assert.deepEqual(types, ['test.good_unit', 'test.good_unit']);
    });
  });
}
