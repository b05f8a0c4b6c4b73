import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Bm25Index } from './bm25-index.ts';

test('documents with the rarer query term rank first', () => {
  const idx = new Bm25Index([['bee', 'hive'], ['bee', 'flower'], ['moon', 'dust'], ['bee', 'bee', 'hive', 'waggle']]);
  const hits = idx.search(['waggle', 'bee'], 2).map((h) => h.doc);
  assert.deepEqual(hits, [3, 0]);
  assert.ok(idx.idf('waggle') > idx.idf('bee'));
});

test('a query with no known term returns nothing', () => {
  assert.deepEqual(new Bm25Index([['a1']]).search(['zzz'], 5), []);
});
