/**
 * The pack index's INSERTs (src/svc/store/repositories/chunk-packs.ts): a
 * pack's entries go in statements of a few fixed sizes, so a long-running
 * server prepares a bounded set of statements whatever its pack sizes, and
 * every entry lands once, on SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { before, describe, test } from 'node:test';
import { indexInsertBatches, type PackEntryRow } from '../../src/svc/store/repositories/chunk-packs.ts';
import type { Store } from '../../src/svc/store/store.ts';
import { engines } from '../helpers/engines.ts';
import { engineStoreFixture } from '../helpers/engine-store.ts';

const SIZES = new Set([128, 64, 32, 16, 8, 4, 2, 1]);

test('a pack of any size is inserted with statements of at most eight sizes, covering every entry once', () => {
  const seen = new Set<number>();
  for (let n = 0; n <= 1200; n++) {
    const batches = indexInsertBatches(n);
    assert.equal(batches.reduce((a, b) => a + b, 0), n, `${n} entries`);
    for (const b of batches) {
      assert.ok(SIZES.has(b), `size ${b}`);
      seen.add(b);
    }
    // Largest first, so a pack needs few statements: at most one of each size below 128.
    assert.deepEqual(batches, [...batches].sort((a, b) => b - a));
    assert.ok(batches.filter((b) => b < 128).length <= 7);
  }
  assert.equal(seen.size, 8);
});

const chunkId = (i: number) => `ch_${createHash('sha256').update(String(i)).digest('hex')}`;

for (const engine of engines()) {
  describe(`pack index inserts on ${engine.name}`, { skip: engine.skip }, () => {
    const fixture = engineStoreFixture(engine.name);
    let store: Store;
    before(() => {
      store = fixture.store;
    });

    for (const n of [1, 165, 511]) {
      test(`a pack of ${n} entries is indexed whole; inserting it again wins nothing`, async () => {
        const scope = 'global';
        const entries: PackEntryRow[] = Array.from({ length: n }, (_, i) => ({ chunk_id: chunkId(n * 10_000 + i), codec: i % 2 ? 'raw' : 'zstd', pack_offset: i * 100, stored_length: 100 }));
        const pack = { pack_id: `pk_${n}`, scope, size_bytes: n * 100, entry_count: n, created_at: new Date().toISOString() };
        const won = await store.chunkPacks.insertPack(pack, entries);
        assert.equal(won.size, n);
        for (const e of [entries[0]!, entries[n - 1]!, entries[Math.floor(n / 2)]!]) {
          const loc = await store.chunkPacks.locate(scope, e.chunk_id, e.codec);
          assert.deepEqual([loc?.pack_id, loc?.pack_offset], [pack.pack_id, e.pack_offset]);
        }
        const again = await store.chunkPacks.insertPack({ ...pack, pack_id: `pk_${n}_again` }, entries);
        assert.equal(again.size, 0, 'an entry already indexed is not taken by a second copy');
      });
    }
  });
}
