import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SLAB_BYTES, SMALL_ENTRY_BYTES, SlabArena, SlabPool } from './pack-slabs.ts';

const filled = (bytes: number, value: number) => new Uint8Array(bytes).fill(value);

test('copies are carved one after another from a slab and keep their bytes when the source changes', () => {
  const arena = new SlabArena(new SlabPool());
  const sources = [filled(64 * 1024, 1), filled(100 * 1024, 2), filled(SMALL_ENTRY_BYTES, 3)];
  const copies = sources.map((s) => arena.copy(s));
  for (const s of sources) s.fill(0xff);
  assert.equal(arena.slabs, 1);
  assert.ok(copies.every((c) => c.buffer === copies[0]!.buffer), 'all three share one slab');
  copies.forEach((c, i) => assert.deepEqual(c, Buffer.from(filled(sources[i]!.byteLength, i + 1))));
  // Carved without overlap, in order.
  assert.equal(copies[1]!.byteOffset, copies[0]!.byteOffset + copies[0]!.byteLength);
  assert.equal(copies[2]!.byteOffset, copies[1]!.byteOffset + copies[1]!.byteLength);
});

test('an entry that does not fit the rest of a slab starts the next one', () => {
  const arena = new SlabArena(new SlabPool());
  const big = 300 * 1024;
  const copies = [1, 2, 3, 4].map((v) => arena.copy(filled(big, v)));
  assert.equal(arena.slabs, 2); // three fit in 1 MiB, the fourth does not
  assert.notEqual(copies[3]!.buffer, copies[2]!.buffer);
  copies.forEach((c, i) => assert.ok(c.every((b) => b === i + 1)));
});

test('small entries and entries larger than a slab are copies of their own, holding no slab', () => {
  const arena = new SlabArena(new SlabPool());
  const small = arena.copy(filled(SMALL_ENTRY_BYTES - 1, 5));
  const huge = arena.copy(filled(SLAB_BYTES + 1, 6));
  assert.equal(arena.slabs, 0);
  assert.equal(small.byteLength, SMALL_ENTRY_BYTES - 1);
  assert.equal(huge.byteLength, SLAB_BYTES + 1);
  assert.ok(huge.every((b) => b === 6));
});

test('released slabs serve the next pack, up to the idle cap; a released arena refuses copies', () => {
  const pool = new SlabPool(2);
  const first = new SlabArena(pool);
  const held = [1, 2, 3].map((v) => first.copy(filled(SLAB_BYTES, v)).buffer);
  assert.equal(first.slabs, 3);
  first.release();
  first.release(); // once
  assert.equal(pool.idle, 2);
  const next = new SlabArena(pool);
  const reused = next.copy(filled(SLAB_BYTES, 9)).buffer;
  assert.ok(held.includes(reused), 'the next pack writes into a slab given back');
  assert.equal(pool.idle, 1);
  assert.throws(() => first.copy(filled(SMALL_ENTRY_BYTES, 1)), /given back/);
});
