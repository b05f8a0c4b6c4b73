import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SvcError } from '../errors.ts';
import { contentRangeHeader, parseRangeHeader, resolveRange } from './byte-range.ts';

const hasCode = (code: string) => (err: unknown) => err instanceof SvcError && err.code === code;

test('an inclusive range resolves as given', () => {
  assert.deepEqual(resolveRange({ start: 0, end: 0 }, 10), { start: 0, end: 0 });
  assert.deepEqual(resolveRange({ start: 3, end: 9 }, 10), { start: 3, end: 9 });
});

test('an end past the object is clamped to the last byte', () => {
  assert.deepEqual(resolveRange({ start: 5, end: 1000 }, 10), { start: 5, end: 9 });
});

test('an open range runs to the last byte', () => {
  assert.deepEqual(resolveRange({ start: 9 }, 10), { start: 9, end: 9 });
});

test('a suffix range names the last bytes, and all of them when longer than the object', () => {
  assert.deepEqual(resolveRange({ suffix: 3 }, 10), { start: 7, end: 9 });
  assert.deepEqual(resolveRange({ suffix: 50 }, 10), { start: 0, end: 9 });
});

test('a start at or past the end is unsatisfiable and reports the size', () => {
  assert.throws(() => resolveRange({ start: 10 }, 10), (err: unknown) => hasCode('range_not_satisfiable')(err) && (err as SvcError).details?.['size'] === 10);
  assert.throws(() => resolveRange({ start: 0 }, 0), hasCode('range_not_satisfiable'));
  assert.throws(() => resolveRange({ suffix: 0 }, 10), hasCode('range_not_satisfiable'));
  assert.throws(() => resolveRange({ suffix: 5 }, 0), hasCode('range_not_satisfiable'));
});

test('negative, fractional and reversed ranges are invalid requests', () => {
  assert.throws(() => resolveRange({ start: -1 }, 10), hasCode('invalid_request'));
  assert.throws(() => resolveRange({ start: 0, end: -5 }, 10), hasCode('invalid_request'));
  assert.throws(() => resolveRange({ start: 1.5 }, 10), hasCode('invalid_request'));
  assert.throws(() => resolveRange({ suffix: -2 }, 10), hasCode('invalid_request'));
  assert.throws(() => resolveRange({ start: 5, end: 4 }, 10), hasCode('invalid_request'));
});

test('Range headers parse into the three forms', () => {
  assert.deepEqual(parseRangeHeader('bytes=0-99'), { start: 0, end: 99 });
  assert.deepEqual(parseRangeHeader('bytes=100-'), { start: 100 });
  assert.deepEqual(parseRangeHeader('bytes=-500'), { suffix: 500 });
  for (const bad of ['bytes=-', 'bytes=1-2,5-6', 'items=0-1', 'bytes=a-b']) assert.throws(() => parseRangeHeader(bad), hasCode('invalid_request'), bad);
});

test('Content-Range names the inclusive range and the size', () => {
  assert.equal(contentRangeHeader({ start: 0, end: 99 }, 1000), 'bytes 0-99/1000');
});
