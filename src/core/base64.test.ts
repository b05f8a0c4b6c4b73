import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeBase64Strict } from './base64.ts';

test('canonical padded base64 decodes', () => {
  assert.deepEqual(Buffer.from(decodeBase64Strict('YWJj')!), Buffer.from('abc'));
  assert.deepEqual(Buffer.from(decodeBase64Strict('YQ==')!), Buffer.from('a'));
  assert.equal(decodeBase64Strict('')?.length, 0);
});

test('invalid characters, missing padding and non-zero padding bits are rejected', () => {
  for (const bad of ['not*base64', 'YQ', 'YR==', 'Y===', 'YWJj\n', '=YWJ']) assert.equal(decodeBase64Strict(bad), undefined, bad);
});

test('inputs of many MiB are checked without exhausting the regexp stack', () => {
  const big = Buffer.alloc(12 * 1024 * 1024, 7);
  assert.equal(decodeBase64Strict(big.toString('base64'))?.length, big.length);
});
