import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_CLASS_BYTES, MAX_IDLE_BYTES, MIN_CLASS_BYTES, TransferBuffers } from './transfer-buffers.ts';

test('sizes round up to a power-of-two class; larger requests are exact and never kept', () => {
  const pool = new TransferBuffers();
  assert.equal(pool.acquire(1).byteLength, MIN_CLASS_BYTES);
  assert.equal(pool.acquire(MIN_CLASS_BYTES + 1).byteLength, 2 * MIN_CLASS_BYTES);
  assert.equal(pool.acquire(MAX_CLASS_BYTES).byteLength, MAX_CLASS_BYTES);
  const big = pool.acquire(MAX_CLASS_BYTES + 1);
  assert.equal(big.byteLength, MAX_CLASS_BYTES + 1);
  pool.release(big);
  assert.equal(pool.idleBytes, 0);
});

test('a released buffer is handed out again', () => {
  const pool = new TransferBuffers();
  const a = pool.acquire(40_000);
  pool.release(a);
  assert.equal(pool.idleBytes, a.byteLength);
  assert.equal(pool.acquire(33_000), a);
  assert.equal(pool.idleBytes, 0);
});

test('idle bytes never exceed the cap; odd sizes and detached buffers are dropped', () => {
  const pool = new TransferBuffers();
  const held = Array.from({ length: 2 * (MAX_IDLE_BYTES / MAX_CLASS_BYTES) }, () => pool.acquire(MAX_CLASS_BYTES));
  for (const b of held) pool.release(b);
  assert.equal(pool.idleBytes, MAX_IDLE_BYTES);
  const fresh = new TransferBuffers();
  fresh.release(new ArrayBuffer(MIN_CLASS_BYTES + 3));
  const detached = new ArrayBuffer(MIN_CLASS_BYTES);
  structuredClone(detached, { transfer: [detached] });
  fresh.release(detached);
  assert.equal(fresh.idleBytes, 0);
});
