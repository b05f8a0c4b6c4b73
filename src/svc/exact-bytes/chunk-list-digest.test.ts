import assert from 'node:assert/strict';
import { test } from 'node:test';
import { chunkListSha256 } from './chunk-list-digest.ts';

const id = (n: number) => `ch_${n.toString(16).padStart(64, '0')}`;
const list = [
  { id: id(1), offset: 0, length: 100, stored_length: 40, codec: 'zstd' as const },
  { id: id(2), offset: 100, length: 50, stored_length: 50, codec: 'raw' as const },
  { id: id(3), offset: 150, length: 70, stored_length: 70, codec: 'raw' as const },
];

test('the digest binds the ids, their order, offsets and lengths', () => {
  const base = chunkListSha256(list);
  assert.match(base, /^[0-9a-f]{64}$/);
  assert.equal(chunkListSha256(list.map((c) => ({ ...c }))), base, 'deterministic');
  const swapped = [list[1]!, list[0]!, list[2]!];
  assert.notEqual(chunkListSha256(swapped), base, 'order');
  assert.notEqual(chunkListSha256([{ ...list[0]!, id: id(9) }, list[1]!, list[2]!]), base, 'an id');
  assert.notEqual(chunkListSha256([list[0]!, { ...list[1]!, offset: 101 }, list[2]!]), base, 'an offset');
  assert.notEqual(chunkListSha256([list[0]!, list[1]!, { ...list[2]!, length: 71 }]), base, 'a length');
  assert.notEqual(chunkListSha256(list.slice(0, 2)), base, 'a chunk dropped');
});

test('how a chunk is stored is not part of it (a repack may change it)', () => {
  const restored = list.map((c) => ({ ...c, codec: 'raw' as const, stored_length: c.length }));
  assert.equal(chunkListSha256(restored), chunkListSha256(list));
});

test('long lists hash the same however they are batched internally', () => {
  const many = Array.from({ length: 5000 }, (_, i) => ({ id: id(i), offset: i * 10, length: 10 }));
  const first = chunkListSha256(many);
  assert.notEqual(chunkListSha256(many.slice(0, 4999)), first);
  assert.equal(chunkListSha256(many), first);
});
