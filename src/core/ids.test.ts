import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isId, newId } from './ids.ts';

test('ids are well-formed, unique and sort in creation order', () => {
  const ids = Array.from({ length: 20_000 }, () => newId('wu'));
  for (const id of ids.slice(0, 100)) assert.ok(isId(id, 'wu'), id);
  assert.equal(new Set(ids).size, ids.length);
  assert.deepEqual([...ids].sort(), ids);
});

test('the random part uses the whole Crockford alphabet', async () => {
  const seen = new Set<string>();
  // A new millisecond makes the monotonic factory draw fresh randomness instead of incrementing.
  for (let i = 0; i < 40 && seen.size < 32; i++) {
    for (const ch of newId('wu').slice(3 + 10)) seen.add(ch);
    await new Promise((r) => setTimeout(r, 1));
  }
  assert.equal(seen.size, 32);
});
