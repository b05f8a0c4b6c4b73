import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Bm25Index } from './bm25-index.ts';

test('documents with the rarer query term rank first', () => {
  const idx = new Bm25Index([['bee', 'hive'], ['ant', 'flower'], ['moon', 'dust'], ['bee', 'bee', 'hive', 'waggle']]);
  assert.deepEqual(idx.search(['waggle', 'bee'], 2).map((h) => h.doc), [3, 0]);
  assert.ok(idx.idf('waggle') > idx.idf('bee'));
});

test('terms found in more than half the documents are skipped when a more specific term is present', () => {
  const idx = new Bm25Index([['bee', 'hive'], ['bee', 'flower'], ['moon', 'dust'], ['bee', 'waggle']]);
  assert.deepEqual(idx.search(['waggle', 'bee'], 3).map((h) => h.doc), [3]);
  assert.deepEqual(idx.search(['bee'], 3).map((h) => h.doc), [0, 1, 3]);
});

test('a query with no known term returns nothing', () => {
  assert.deepEqual(new Bm25Index([['a1']]).search(['zzz'], 5), []);
});
