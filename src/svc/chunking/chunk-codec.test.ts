import { test } from 'node:test';
import assert from 'node:assert/strict';
import { corpusFile } from '../../../bench/corpus/corpus-files.ts';
import { decodeChunk, encodeChunk, MIN_SAVING_RATIO } from './chunk-codec.ts';

test('compressible chunks are stored as zstd and decode to the same bytes', async () => {
  const raw = corpusFile('log-like', 64 * 1024, 'codec');
  const encoded = await encodeChunk(raw);
  assert.equal(encoded.codec, 'zstd');
  assert.ok(encoded.data.length < raw.length * (1 - MIN_SAVING_RATIO));
  assert.deepEqual(Buffer.from(await decodeChunk('zstd', encoded.data)), raw);
});

test('high-entropy chunks are stored raw without trying to compress them', async () => {
  const encoded = await encodeChunk(corpusFile('random', 64 * 1024, 'codec'));
  assert.equal(encoded.codec, 'raw');
  assert.equal(encoded.rawReason, 'high_entropy');
  assert.equal(encoded.compressedLength, undefined);
});

test('chunks of an already-compressed object are stored raw', async () => {
  const encoded = await encodeChunk(corpusFile('log-like', 64 * 1024, 'codec'), { objectIsCompressed: true });
  assert.deepEqual([encoded.codec, encoded.rawReason], ['raw', 'object_compressed_format']);
});

test('a chunk whose compression saves too little is kept raw', async () => {
  // Random bytes with a 1 KiB run at the end: the run lands in the entropy
  // sample (which then looks compressible) but zstd saves only ~3%.
  const mixed = Buffer.concat([corpusFile('random', 32 * 1024, 'mix'), Buffer.alloc(1024, 0x61)]);
  const encoded = await encodeChunk(mixed);
  assert.equal(encoded.codec, 'raw');
  assert.equal(encoded.rawReason, 'saving_below_threshold');
  assert.ok(encoded.compressedLength !== undefined && encoded.compressedLength > mixed.length * (1 - MIN_SAVING_RATIO));
});

test('a corrupt zstd frame fails to decode', async () => {
  await assert.rejects(decodeChunk('zstd', Buffer.from('definitely not zstd')));
});

test('the manifest length only sizes the output: a wrong length still decodes the whole frame (decision 182)', async () => {
  const raw = Buffer.from('a log line that repeats, with a counter 0123456789\n'.repeat(2000));
  const { data } = await encodeChunk(raw);
  assert.deepEqual(Buffer.from(await decodeChunk('zstd', data, raw.length)), raw, 'exact length: decoded inline');
  assert.deepEqual(Buffer.from(await decodeChunk('zstd', data, 1000)), raw, 'too short a length: decoded in full anyway');
  assert.deepEqual(Buffer.from(await decodeChunk('zstd', data, raw.length * 3)), raw, 'too long a length: the real length comes back');
  assert.deepEqual(Buffer.from(await decodeChunk('zstd', data)), raw, 'no length: decoded on the pool');
  await assert.rejects(decodeChunk('zstd', data.subarray(0, data.length - 5), raw.length), 'a cut frame fails inline too');
});
