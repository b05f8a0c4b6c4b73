import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ReadBuffers } from './read-buffers.ts';

test('a buffer given back is lent again; its length is exactly what was asked', () => {
  const buffers = new ReadBuffers();
  const a = buffers.borrow(40_000);
  assert.equal(a.length, 40_000);
  const backing = a.buffer;
  buffers.giveBack(a);
  assert.ok(buffers.idleBytes > 0);
  const b = buffers.borrow(50_000);
  assert.equal(b.buffer, backing, 'the same memory, reused');
  assert.equal(b.length, 50_000);
  assert.equal(buffers.idleBytes, 0);
});

test('giving back twice, a view of a lent buffer after it, or a buffer never lent changes nothing', () => {
  const buffers = new ReadBuffers();
  const a = buffers.borrow(20_000);
  buffers.giveBack(a);
  buffers.giveBack(a);
  buffers.giveBack(a.subarray(10));
  buffers.giveBack(Buffer.alloc(32 * 1024));
  const first = buffers.borrow(20_000);
  const second = buffers.borrow(20_000);
  assert.notEqual(first.buffer, second.buffer, 'a double give-back must never lend one buffer to two readers');
});

test('a view (a range of a borrowed buffer) gives back the whole buffer', () => {
  const buffers = new ReadBuffers();
  const a = buffers.borrow(30_000);
  buffers.giveBack(a.subarray(100, 200));
  assert.equal(buffers.borrow(30_000).buffer, a.buffer);
});
