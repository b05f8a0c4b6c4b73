/**
 * The parts of parallel verification that need no database: how the chain is cut into chunks, and how chunk results
 * are stitched into the report a single walk gives (test/foundation/ledger.test.ts runs the whole thing on both engines).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GENESIS_HASH } from '../../core/hash-chain.ts';
import { guidedChunks, stitch } from './verify.ts';

test('guided chunks cover 1..head without gaps or overlap, 50,000 at most, shrinking to no less than 5,000 at the end', () => {
  for (const [head, threads] of [[1, 2], [4_999, 2], [100_000, 2], [1_000_000, 2], [1_234_567, 8]] as const) {
    const chunks = guidedChunks(head, threads);
    assert.equal(chunks[0]![0], 1);
    assert.equal(chunks.at(-1)![1], head);
    for (let k = 1; k < chunks.length; k++) assert.equal(chunks[k]![0], chunks[k - 1]![1] + 1);
    const sizes = chunks.map(([a, b]) => b - a + 1);
    assert.ok(sizes.every((n) => n <= 50_000));
    assert.ok(sizes.slice(0, -1).every((n) => n >= 5_000), `${head}: ${sizes.join(',')}`);
    for (let k = 1; k < sizes.length - 1; k++) assert.ok(sizes[k]! <= sizes[k - 1]!, 'sizes never grow');
  }
  assert.equal(guidedChunks(1_000_000, 2).at(-2)![1] - guidedChunks(1_000_000, 2).at(-2)![0] + 1, 5_000);
});

test('stitch: a range that does not start where the previous one ended is the break, counted as one checked event', () => {
  const h = (c: string) => c.repeat(64);
  const range = (firstSeq: number, lastSeq: number, firstPrevHash: string, lastHash: string) => ({ fromSeq: firstSeq, toSeq: lastSeq, checked: lastSeq - firstSeq + 1, firstPrevHash, lastHash, firstEventId: `evt_${firstSeq}`, firstSeq, lastSeq });
  assert.deepEqual(stitch([range(1, 10, GENESIS_HASH, h('a')), range(11, 20, h('a'), h('b'))]), { ok: true, checked: 20, headHash: h('b') });
  assert.deepEqual(stitch([range(1, 10, GENESIS_HASH, h('a')), range(11, 20, h('c'), h('b'))]), {
    ok: false, checked: 11, headHash: h('a'), firstBreak: { kind: 'prev_hash_mismatch', position: 11, expected: h('a'), found: h('c') }, first_bad_event_id: 'evt_11',
  });
  assert.deepEqual(stitch([range(1, 10, GENESIS_HASH, h('a')), range(12, 20, h('a'), h('b'))]).firstBreak, { kind: 'sequence_gap', position: 12, expected: 11, found: 12 });
});
