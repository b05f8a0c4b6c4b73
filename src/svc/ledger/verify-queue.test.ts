/**
 * The chunk queue parallel verification shares between threads: every chunk is handed out once, in order, and none
 * after the earliest chunk known to hold a break (test/foundation/ledger.test.ts runs it across real threads).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ChunkQueue } from './verify-queue.ts';

const drain = (q: ChunkQueue) => {
  const got: number[] = [];
  for (let k = q.claim(); k !== undefined; k = q.claim()) got.push(k);
  return got;
};

test('claims hand out every chunk once, in order, across queues attached to one buffer', () => {
  const q = new ChunkQueue(5);
  const other = new ChunkQueue(5, 0, q.buffer);
  assert.deepEqual([q.claim(), other.claim(), q.claim(), other.claim(), q.claim(), other.claim(), q.claim()], [0, 1, 2, 3, 4, undefined, undefined]);
  assert.equal(q.wanted, 5);
});

test('dealt chunks are skipped by claims: the queue starts at `first`', () => {
  assert.deepEqual(drain(new ChunkQueue(4, 2)), [2, 3]);
  assert.deepEqual(drain(new ChunkQueue(2, 3)), []);
});

test('a break stops later chunks; only an earlier break lowers the limit, and a claimed chunk past it is not wanted', () => {
  const q = new ChunkQueue(10);
  assert.deepEqual([q.claim(), q.claim(), q.claim(), q.claim()], [0, 1, 2, 3]);
  q.breakAt(5);
  assert.equal(q.wanted, 6);
  q.breakAt(7); // a later break changes nothing
  assert.equal(q.wanted, 6);
  assert.deepEqual(drain(q), [4, 5]);
  q.breakAt(2);
  assert.equal(new ChunkQueue(10, 0, q.buffer).wanted, 3);
  assert.equal(q.wants(2), true);
  assert.equal(q.wants(3), false);
});
