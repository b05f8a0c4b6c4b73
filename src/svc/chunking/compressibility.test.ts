import { test } from 'node:test';
import assert from 'node:assert/strict';
import { gzipSync, zstdCompressSync } from 'node:zlib';
import { corpusFile } from '../../../bench/corpus/corpus-files.ts';
import { detectCompressedFormat, INCOMPRESSIBLE_ENTROPY_BITS, looksIncompressible, sampleEntropyBits } from './compressibility.ts';

test('recognises gzip, zstd and png by their magic bytes', () => {
  assert.equal(detectCompressedFormat(gzipSync(Buffer.from('hello hello hello'))), 'gzip');
  assert.equal(detectCompressedFormat(zstdCompressSync(Buffer.from('hello hello hello'))), 'zstd');
  assert.equal(detectCompressedFormat(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])), 'png');
});

test('plain text and JSON are not taken for a compressed format', () => {
  assert.equal(detectCompressedFormat(corpusFile('log-like', 64, 'magic')), undefined);
  assert.equal(detectCompressedFormat(corpusFile('json', 64, 'magic')), undefined);
  assert.equal(detectCompressedFormat(new Uint8Array(0)), undefined);
});

test('random and encrypted-like data measure above the entropy threshold', () => {
  assert.ok(sampleEntropyBits(corpusFile('random', 64 * 1024, 'e')) > INCOMPRESSIBLE_ENTROPY_BITS);
  assert.ok(looksIncompressible(corpusFile('encrypted-like', 64 * 1024, 'e').subarray(1024)));
});

test('logs and JSON measure well below the threshold', () => {
  assert.ok(sampleEntropyBits(corpusFile('log-like', 64 * 1024, 'e')) < 6.5);
  assert.equal(looksIncompressible(corpusFile('json', 64 * 1024, 'e')), false);
});

test('a constant run has zero entropy', () => {
  assert.equal(sampleEntropyBits(new Uint8Array(10_000).fill(7)), 0);
});
