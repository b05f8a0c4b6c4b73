import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SlidingWindowRateLimiter } from './sliding-window-rate-limiter.ts';

function limiter(maxRequests: number, windowMs: number) {
  let now = 1_000;
  const rl = new SlidingWindowRateLimiter({ windowMs, maxRequests, now: () => now });
  return { rl, advance: (ms: number) => (now += ms) };
}

test('admits up to the threshold within one window and rejects the next request', () => {
  const { rl } = limiter(3, 1_000);
  assert.deepEqual([1, 2, 3, 4].map(() => rl.admit('a').allowed), [true, true, true, false]);
});

test('the window slides: an admission frees up exactly when the oldest one leaves the window', () => {
  const { rl, advance } = limiter(2, 1_000);
  rl.admit('a');
  advance(600);
  rl.admit('a');
  advance(300);
  const rejected = rl.admit('a');
  assert.equal(rejected.allowed, false);
  assert.equal(rejected.retryAfterMs, 100);
  advance(100);
  assert.equal(rl.admit('a').allowed, true);
  assert.equal(rl.admit('a').allowed, false);
});

test('clients are limited independently', () => {
  const { rl } = limiter(1, 1_000);
  assert.equal(rl.admit('a').allowed, true);
  assert.equal(rl.admit('a').allowed, false);
  assert.equal(rl.admit('b').allowed, true);
});

test('idle clients are forgotten after a window', () => {
  const { rl, advance } = limiter(1, 1_000);
  rl.admit('a');
  rl.admit('b');
  advance(2_000);
  rl.admit('c');
  assert.equal(rl.trackedClients, 1);
});
