/**
 * Ledger integrity: concurrent appends keep one linear chain; any change to a
 * stored event is found at that event; two processes on PostgreSQL share one
 * chain; `svc ledger verify` reports both outcomes with its exit code.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { LedgerAppender } from '../../src/svc/ledger/appender.ts';
import { canonicalEventBody } from '../../src/svc/ledger/event.ts';
import { type VerifyStats, verifyLedger } from '../../src/svc/ledger/verify.ts';
import { canonicalJson } from '../../src/core/canonical-json.ts';
import { chainHash } from '../../src/core/hash-chain.ts';
import { openDb } from '../../src/svc/store/open-db.ts';
import { openStore } from '../../src/svc/store/store.ts';
import { LEDGER_COLUMNS } from '../../src/svc/store/repositories/ledger.ts';
import { type EngineTarget, PG_URL, engineTarget, engines } from '../helpers/engines.ts';
import { useStore } from '../helpers/store-fixture.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');

test('the hand-built canonical event body equals RFC 8785 canonical JSON', () => {
  const row = { seq: 7, id: 'evt_x', ts: '2026-01-01T00:00:00.000Z', type: 't', tenant: null, actor: 'a"b', work_unit_id: 'wu_1', manifest_id: null, policy_bundle_id: 'pb', trace_id: null, payload: canonicalJson({ z: 1, a: ['é', 2.5] }) };
  assert.equal(canonicalEventBody(row), canonicalJson({ ...row, payload: JSON.parse(row.payload) }));
});

for (const engine of engines()) {
  describe(`ledger on ${engine.name}`, { skip: engine.skip }, () => {
    const fx = useStore(engine.name);

    test('10,000 concurrent appends form one verified chain without gaps', async () => {
      const appender = new LedgerAppender(fx.store.ledger);
      const events = await Promise.all(Array.from({ length: 10_000 }, (_, i) => appender.append({ type: 'load.append', actor: 'load', tenant: `t${i % 7}`, payload: { i } })));
      const seqs = events.map((e) => e.seq).sort((a, b) => a - b);
      assert.equal(new Set(seqs).size, 10_000);
      assert.equal(seqs.at(-1)! - seqs[0]! + 1, 10_000);
      const report = await verifyLedger(fx.store.ledger);
      assert.equal(report.ok, true, JSON.stringify(report.firstBreak));
      assert.equal(report.checked, 10_000);
    });

    // Sequential, and in chunks shared by threads with chunk boundaries at 5,000|5,001 (the calling thread and a worker,
    // as they come), 2,500|2,501 with the first chunks dealt (the calling thread verifies 1–2,500 and the worker
    // 2,501–5,000, the rest as they come) and 3,334|3,335 (worker threads only, so every chunk crosses a thread):
    // every mode must report the same break, also for a victim at a boundary and in either thread's share.
    const dealt = async () => {
      const stats: VerifyStats = { threadCpuSeconds: [] };
      const report = await verifyLedger(fx.store.ledger, { target: fx.target, workers: 2, parallelMinEvents: 0, chunkEvents: 2_500, dealFirstChunks: true, stats });
      assert.deepEqual(stats.chunkThreads!.slice(0, 2), [0, 1].slice(0, stats.chunkThreads!.length), 'the calling thread verified chunk 0, the worker chunk 1');
      return report;
    };
    const verifyModes = () => [
      { name: 'sequential', run: () => verifyLedger(fx.store.ledger) },
      { name: 'caller + 1 worker', run: () => verifyLedger(fx.store.ledger, { target: fx.target, workers: 2, parallelMinEvents: 0, chunkEvents: 5_000 }) },
      { name: 'caller + 1 worker, first chunks dealt', run: dealt },
      { name: '3 workers only', run: () => verifyLedger(fx.store.ledger, { target: fx.target, workers: 3, parallelMinEvents: 0, chunkEvents: 3_334, callerThread: false }) },
    ];

    test('events with quotes, backslashes, control characters and non-ASCII text verify (database-built bodies match)', async () => {
      const appender = new LedgerAppender(fx.store.ledger);
      await appender.append({ type: 'odd.text', actor: 'a\tb"c\\d\u0001\u007fé😀', tenant: 'tën\nant', trace_id: '/slash/', payload: { note: 'x\by\fz\r', emoji: '😀', nul: '\u0000' } });
      const report = await verifyLedger(fx.store.ledger);
      assert.equal(report.ok, true, JSON.stringify(report.firstBreak));
    });

    test('parallel verification agrees with the sequential walk on an intact chain', async () => {
      const [seq, two, dealtTwo, three] = await Promise.all(verifyModes().map((m) => m.run()));
      // Which threads got chunks depends on timing (the dealt mode: both); the worker-only mode used at least one worker.
      assert.ok(two!.workers >= 1 && two!.workers <= 2);
      assert.equal(dealtTwo!.workers, 2);
      assert.ok(three!.workers >= 1 && three!.workers <= 3);
      for (const r of [two!, dealtTwo!, three!]) assert.deepEqual({ ...r, duration_ms: 0, workers: 0 }, { ...seq!, duration_ms: 0, workers: 0 });
    });

    for (const column of ['payload', 'actor', 'type', 'ts', 'tenant', 'prev_hash', 'hash']) {
      test(`flipping a byte of ${column} in a stored event breaks verification at that event (sequential and parallel)`, async () => {
        for (const at of [1_000, 2_500, 2_501, 3_335, 5_000, 5_001]) {
          const victim = (await fx.store.ledger.scan(at - 1, 1))[0]!;
          const original = String(victim[column as keyof typeof victim]);
          const flipped = original.slice(0, 2) + (original[2] === 'a' ? 'b' : 'a') + original.slice(3);
          await fx.store.db.run(`UPDATE ledger_events SET ${column} = $1 WHERE seq = $2`, [flipped, victim.seq]);
          try {
            for (const mode of verifyModes()) {
              const report = await mode.run();
              assert.equal(report.ok, false, `${mode.name}, seq ${at}`);
              assert.equal(report.firstBreak?.position, Number(victim.seq), `${mode.name}, seq ${at}`);
              assert.equal(report.first_bad_event_id, victim.id, `${mode.name}, seq ${at}`);
              assert.equal(report.checked, Number(victim.seq), `${mode.name}, seq ${at}: a walk from seq 1 checks up to the bad event`);
            }
          } finally {
            await fx.store.db.run(`UPDATE ledger_events SET ${column} = $1 WHERE seq = $2`, [original, victim.seq]);
          }
        }
        assert.equal((await verifyLedger(fx.store.ledger)).ok, true);
      });
    }

    test('a prev_hash extended past 64 characters (and the hash recomputed over it) is a prev_hash break, not a link that holds', async () => {
      // The record the database renders starts with the stored prev_hash, so "starts with the expected hash" alone would
      // accept `expected + "\n{…"`; the fast path only trusts it when the stored prev_hash is exactly 64 bytes.
      for (const at of [700, 5_001]) {
        const victim = (await fx.store.ledger.scan(at - 1, 1))[0]!;
        const forgedPrev = `${victim.prev_hash}\n{"actor":"x"}`;
        const forgedHash = chainHash(forgedPrev, canonicalEventBody({ ...victim, seq: Number(victim.seq) }));
        const next = (await fx.store.ledger.scan(at, 1))[0]!;
        const nextHash = chainHash(forgedHash, canonicalEventBody({ ...next, seq: Number(next.seq) }));
        await fx.store.db.run('UPDATE ledger_events SET prev_hash = $1, hash = $2 WHERE seq = $3', [forgedPrev, forgedHash, victim.seq]);
        await fx.store.db.run('UPDATE ledger_events SET prev_hash = $1, hash = $2 WHERE seq = $3', [forgedHash, nextHash, next.seq]);
        try {
          for (const mode of verifyModes()) {
            const report = await mode.run();
            assert.equal(report.ok, false, `${mode.name}, seq ${at}`);
            assert.deepEqual([report.firstBreak?.kind, report.firstBreak?.position, report.first_bad_event_id], ['prev_hash_mismatch', Number(victim.seq), victim.id], `${mode.name}, seq ${at}`);
          }
        } finally {
          await fx.store.db.run('UPDATE ledger_events SET prev_hash = $1, hash = $2 WHERE seq = $3', [victim.prev_hash, victim.hash, victim.seq]);
          await fx.store.db.run('UPDATE ledger_events SET prev_hash = $1, hash = $2 WHERE seq = $3', [next.prev_hash, next.hash, next.seq]);
        }
      }
      assert.equal((await verifyLedger(fx.store.ledger)).ok, true);
    });

    test("with breaks in both threads' shares, the earliest is reported, whichever thread finds it first", async () => {
      // Dealt mode: 1,000 is the calling thread's, 3,335 the worker's, 8,000 whichever thread takes that chunk.
      for (const ats of [[1_000, 3_335], [3_335, 8_000], [2_501, 3_335]]) {
        const victims = await Promise.all(ats.map(async (at) => (await fx.store.ledger.scan(at - 1, 1))[0]!));
        for (const v of victims) await fx.store.db.run('UPDATE ledger_events SET actor = $1 WHERE seq = $2', [`${v.actor}!`, v.seq]);
        try {
          for (const mode of verifyModes()) {
            const report = await mode.run();
            assert.deepEqual([report.ok, report.firstBreak?.kind, report.firstBreak?.position, report.first_bad_event_id, report.checked], [false, 'entry_hash_mismatch', Number(victims[0]!.seq), victims[0]!.id, Number(victims[0]!.seq)], `${mode.name}, seqs ${ats.join(' and ')}`);
          }
        } finally {
          for (const v of victims) await fx.store.db.run('UPDATE ledger_events SET actor = $1 WHERE seq = $2', [v.actor, v.seq]);
        }
      }
      assert.equal((await verifyLedger(fx.store.ledger)).ok, true);
    });

    test('a deleted event is reported as a gap, also when it ends a parallel range', async () => {
      for (const at of [100, 2_500, 5_000]) {
        const victim = (await fx.store.ledger.scan(at - 1, 1))[0]!;
        const next = (await fx.store.ledger.scan(at, 1))[0]!;
        await fx.store.db.run('DELETE FROM ledger_events WHERE seq = $1', [victim.seq]);
        for (const mode of verifyModes()) {
          const report = await mode.run();
          assert.equal(report.ok, false, mode.name);
          assert.deepEqual(report.firstBreak, { kind: 'sequence_gap', position: Number(victim.seq) + 1, expected: Number(victim.seq), found: Number(victim.seq) + 1 }, `${mode.name}, seq ${at}`);
          assert.equal(report.first_bad_event_id, next.id, mode.name);
          assert.equal(report.checked, Number(victim.seq), mode.name);
        }
        await fx.store.db.run(`INSERT INTO ledger_events (${LEDGER_COLUMNS.join(', ')}) VALUES (${LEDGER_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`, LEDGER_COLUMNS.map((c) => victim[c]));
        assert.equal((await verifyLedger(fx.store.ledger)).ok, true);
      }
    });
  });
}

test('a verify worker that cannot read its chunk fails the run with its message, and no worker is left running', async () => {
  const target = await engineTarget('sqlite');
  const empty = await engineTarget('sqlite'); // a database without the ledger table: the worker's query fails
  try {
    await openDb(empty).close();
    const store = await openStore(target);
    await new LedgerAppender(store.ledger).appendMany(Array.from({ length: 30 }, (_, i) => ({ type: 'w.t', actor: 'w', payload: { i } })));
    const before = process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length;
    await assert.rejects(verifyLedger(store.ledger, { target: empty, workers: 2, parallelMinEvents: 0, chunkEvents: 10, callerThread: false }), /ledger verify worker: .*no such table/);
    assert.equal(process.getActiveResourcesInfo().filter((r) => r === 'MessagePort').length, before);
    await store.close();
  } finally {
    await target.cleanup();
    await empty.cleanup();
  }
});

describe('ledger shared by two processes on PostgreSQL', { skip: PG_URL ? false : 'PostgreSQL tests skipped: SVC_TEST_DATABASE_URL is not set' }, () => {
  let target: EngineTarget;
  before(async () => {
    target = await engineTarget('postgres');
    (await openStore(target)).close();
  });
  after(async () => target?.cleanup());

  test('two processes appending at once keep one linear chain', async () => {
    const store = await openStore(target); // applies migrations before the workers start
    const worker = path.join(ROOT, 'test/foundation/ledger-append-worker.ts');
    const runWorker = (label: string) =>
      new Promise<number>((resolve) => {
        const child = spawn(process.execPath, [worker, PG_URL!, target.pgSchema!, '2000', label], { stdio: 'inherit' });
        child.on('exit', (code) => resolve(code ?? 1));
      });
    const codes = await Promise.all([runWorker('proc-a'), runWorker('proc-b')]);
    assert.deepEqual(codes, [0, 0]);
    const report = await verifyLedger(store.ledger);
    await store.close();
    assert.equal(report.ok, true, JSON.stringify(report.firstBreak));
    assert.equal(report.checked, 4000);
  });
});

describe('svc ledger verify (offline CLI)', () => {
  let target: EngineTarget;
  before(async () => {
    target = await engineTarget('sqlite');
    const store = await openStore(target);
    await new LedgerAppender(store.ledger).appendMany(Array.from({ length: 50 }, (_, i) => ({ type: 'cli.t', actor: 'cli', payload: { i } })));
    await store.close();
  });
  after(async () => target?.cleanup());

  const verify = () =>
    spawnSync(process.execPath, [path.join(ROOT, 'bin/svc.mjs'), 'ledger', 'verify', '--offline', '--json'], {
      env: { ...process.env, SVC_STATE_DIR: target.stateDir, SVC_DATABASE_URL: '' },
      encoding: 'utf8',
    });

  test('exits 0 on an intact chain and 3 naming the event after tampering', async () => {
    const good = verify();
    assert.equal(good.status, 0, good.stderr);
    assert.equal(JSON.parse(good.stdout).checked, 50);

    const store = await openStore(target);
    const victim = (await store.ledger.scan(20, 1))[0]!;
    await store.db.run('UPDATE ledger_events SET payload = $1 WHERE seq = $2', ['{"i":999}', victim.seq]);
    await store.close();

    const bad = verify();
    assert.equal(bad.status, 3);
    const report = JSON.parse(bad.stdout);
    assert.equal(report.ok, false);
    assert.equal(report.first_bad_event_id, victim.id);
  });
});
