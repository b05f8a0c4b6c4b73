/**
 * Identifiers: `<prefix>_<lowercase ULID>`, monotonic within the process
 * (ORDER BY id is creation order, which pagination relies on), the time part
 * the creation millisecond as ulidx and every other ULID reader decode it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeTime, encodeTime, isValid } from 'ulidx';
import { encodeUlidTime, isId, monotonicUlid, newId } from '../../src/core/ids.ts';

test('an id is the prefix and a lowercase ULID of the current millisecond', () => {
  const before = Date.now();
  const id = newId('wu');
  const after = Date.now();
  assert.ok(isId(id, 'wu'), id);
  const ulid = id.slice(3);
  assert.equal(ulid, ulid.toLowerCase());
  assert.ok(isValid(ulid.toUpperCase()));
  const t = decodeTime(ulid.toUpperCase());
  assert.ok(t >= before && t <= after, `${t} within [${before}, ${after}]`);
});

test('the time part is the one ulidx encodes, up to the largest 48-bit time', () => {
  for (const ms of [0, 1, 31, 32, 1_700_000_000_123, Date.now(), 2 ** 48 - 1]) assert.equal(encodeUlidTime(ms), encodeTime(ms, 10).toLowerCase(), String(ms));
});

test('ids made in one millisecond, or after the clock went back, still sort in the order they were made', () => {
  const t = Date.now() + 1; // a millisecond no id has used yet
  const ids = Array.from({ length: 3000 }, () => monotonicUlid(t)); // 3,000 increments: many carries across digits
  for (let i = 1; i < ids.length; i++) assert.ok(ids[i]! > ids[i - 1]!, `${ids[i - 1]} < ${ids[i]}`);
  assert.ok(ids.every((u) => decodeTime(u.toUpperCase()) === t));
  // The clock going back keeps the last time and counts on.
  const back = monotonicUlid(t - 5);
  assert.ok(back > ids.at(-1)!);
  assert.equal(decodeTime(back.toUpperCase()), t);
  // A later millisecond starts over with fresh random bits and sorts after.
  const later = monotonicUlid(t + 1);
  assert.ok(later > back);
  assert.equal(decodeTime(later.toUpperCase()), t + 1);
});

test('100,000 ids in a tight loop are unique and strictly increasing', () => {
  let previous = newId('evt');
  const seen = new Set([previous]);
  for (let i = 0; i < 100_000; i++) {
    const id = newId('evt');
    assert.ok(id > previous);
    seen.add(id);
    previous = id;
  }
  assert.equal(seen.size, 100_001);
});

test('the random part of a new millisecond uses the whole alphabet', () => {
  const counts = new Map<string, number>();
  let t = Date.now() + 10;
  for (let i = 0; i < 2000; i++) {
    const u = monotonicUlid(t++);
    for (const c of u.slice(10)) counts.set(c, (counts.get(c) ?? 0) + 1);
  }
  assert.equal(counts.size, 32);
  // 32,000 characters, 1,000 expected per symbol: each within ±25%.
  for (const [c, n] of counts) assert.ok(n > 750 && n < 1250, `${c}: ${n}`);
});
