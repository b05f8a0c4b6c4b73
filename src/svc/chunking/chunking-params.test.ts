import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SvcError } from '../errors.ts';
import { DEFAULT_CHUNKING, validateChunkingParams } from './chunking-params.ts';

test('defaults are valid', () => {
  assert.deepEqual(validateChunkingParams(), DEFAULT_CHUNKING);
});

for (const [name, input, field] of [
  ['an average that is not a power of two', { avgSize: 50_000, minSize: 10_000, maxSize: 200_000 }, 'chunking.avgSize'],
  ['a minimum at or above the average', { minSize: 65_536 }, 'chunking.minSize'],
  ['a maximum at or below the average', { maxSize: 65_536 }, 'chunking.maxSize'],
  ['a normalisation level above 3', { normalization: 4 }, 'chunking.normalization'],
  ['a fractional size', { minSize: 1000.5 }, 'chunking.minSize'],
] as const) {
  test(`rejects ${name}, naming the field`, () => {
    assert.throws(() => validateChunkingParams(input), (err: unknown) => err instanceof SvcError && err.code === 'invalid_request' && err.details?.['field'] === field);
  });
}
