/**
 * Group commit gathering (docs/decisions/175): while writers report record
 * units on their way, a batch waits a few passes of the event loop for them,
 * so units handed over in successive passes share one commit; with nothing
 * on its way, or when a pass brings nothing, it commits without waiting.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { GATHER_ROUNDS, LedgerAppender } from '../../src/svc/ledger/appender.ts';
import { useStore } from '../helpers/store-fixture.ts';

const pass = () => new Promise<void>((r) => setImmediate(r));

describe('ledger group commit gathers units on their way', () => {
  const fx = useStore('sqlite');

  /** Commits `count` units, unit i handed over after i passes of the event loop; returns each unit's batch size. */
  async function staggered(appender: LedgerAppender, count: number, onHandOver: () => void = () => {}): Promise<number[]> {
    const sizes: number[] = [];
    const commits: Array<Promise<unknown>> = [];
    for (let i = 0; i < count; i++) {
      onHandOver();
      commits.push(
        appender.commit({
          write: async (_tx, unitsInBatch) => {
            sizes[i] = unitsInBatch;
          },
          events: [{ type: 'gather.unit', actor: 'test', payload: { i } }],
        }),
      );
      await pass();
    }
    await Promise.all(commits);
    return sizes;
  }

  test('without units on their way, each pass commits what it has (as before)', async () => {
    const sizes = await staggered(new LedgerAppender(fx.store.ledger), 3);
    assert.equal(sizes[0], 1, 'the first unit did not wait for the next ones');
  });

  test('units handed over in successive passes share one commit while more are on their way', async () => {
    const appender = new LedgerAppender(fx.store.ledger);
    let onTheirWay = 3;
    appender.expectUnitsFrom(() => onTheirWay);
    const sizes = await staggered(appender, 3, () => onTheirWay--);
    assert.deepEqual(sizes, [3, 3, 3]);
    // One transaction: the three events carry one timestamp and consecutive sequence numbers.
    const rows = (await fx.store.ledger.query({ eventTypes: ['gather.unit'], limit: 100 })).slice(-3);
    assert.equal(new Set(rows.map((r) => r.ts)).size, 1);
    assert.equal(Number(rows[2]!.seq) - Number(rows[0]!.seq), 2);
  });

  test('a pass that brings nothing ends the wait (requests still waiting on a slow upstream)', async () => {
    const appender = new LedgerAppender(fx.store.ledger);
    appender.expectUnitsFrom(() => 5); // reported forever, never handed over
    let sizes: number[] = [];
    const done = appender.commit({ write: async (_tx, n) => void sizes.push(n), events: [{ type: 'gather.alone', actor: 'test' }] });
    await done;
    assert.deepEqual(sizes, [1]);
    sizes = [];
    // Still bounded when units keep coming: at most GATHER_ROUNDS extra passes before the first commit.
    const many = await staggered(appender, GATHER_ROUNDS + 6);
    assert.ok(many[0]! > 1, `the first batch gathered (${many[0]})`);
    assert.ok(many[0]! <= GATHER_ROUNDS + 2, `the first batch stopped gathering (${many[0]} units)`);
  });

  test('the sources of several writers add up, and a failing unit still fails alone', async () => {
    const appender = new LedgerAppender(fx.store.ledger);
    let a = 1;
    let b = 1;
    appender.expectUnitsFrom(() => a);
    appender.expectUnitsFrom(() => b);
    const sizes: number[] = [];
    const first = appender.commit({ write: async (_tx, n) => void sizes.push(n), events: [{ type: 'gather.ok', actor: 'test' }] });
    await pass();
    a = 0;
    const failing = appender.commit({
      write: async () => {
        throw new Error('cannot write this unit');
      },
      events: [{ type: 'gather.bad', actor: 'test' }],
    });
    await pass();
    b = 0;
    const third = appender.commit({ write: async (_tx, n) => void sizes.push(n), events: [{ type: 'gather.ok', actor: 'test' }] });
    await assert.rejects(failing, /cannot write this unit/);
    await Promise.all([first, third]);
    // Gathered into one batch of three, which failed at the second unit; retried one by one, the good units commit alone.
    assert.deepEqual(sizes, [3, 1, 1]);
    assert.equal((await fx.store.ledger.query({ eventTypes: ['gather.ok'], limit: 10 })).length, 2);
    assert.equal((await fx.store.ledger.query({ eventTypes: ['gather.bad'], limit: 10 })).length, 0);
  });
});
