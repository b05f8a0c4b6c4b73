import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { corpusFile, withInsertedByte } from '../../../bench/corpus/corpus-files.ts';
import { GEAR_SEED, GEAR_TABLE } from './gear-table.ts';
import { chunkBuffer, chunkStream } from './stream-chunker.ts';

const SMALL = { minSize: 1024, avgSize: 4096, maxSize: 16384, normalization: 2 };

function lengths(data: Uint8Array, params = SMALL): number[] {
  return [...chunkBuffer(data, params)].map((c) => c.length);
}

function chunkHashes(data: Uint8Array, params = SMALL): string[] {
  return [...chunkBuffer(data, params)].map((c) => createHash('sha256').update(c).digest('hex'));
}

async function* inPieces(data: Uint8Array, sizes: number[]): AsyncGenerator<Uint8Array> {
  let offset = 0;
  for (let k = 0; offset < data.length; k++) {
    const size = sizes[k % sizes.length]!;
    yield data.subarray(offset, offset + size);
    offset += size;
  }
}

test('the gear table is derived from the documented seed', () => {
  for (const i of [0, 1, 127, 255]) {
    const expected = createHash('sha256').update(GEAR_SEED).update(Uint8Array.of(i)).digest().readInt32BE(0);
    assert.equal(GEAR_TABLE[i], expected);
  }
  assert.equal(new Set(GEAR_TABLE).size, 256, 'gear entries are distinct');
});

test('chunks tile the input and respect the size bounds', () => {
  const data = corpusFile('random', 1 << 20, 'bounds');
  const sizes = lengths(data);
  assert.equal(sizes.reduce((a, b) => a + b, 0), data.length);
  for (const size of sizes.slice(0, -1)) {
    assert.ok(size >= SMALL.minSize && size <= SMALL.maxSize, `chunk of ${size} bytes is out of bounds`);
  }
  const mean = data.length / sizes.length;
  assert.ok(mean > SMALL.avgSize * 0.75 && mean < SMALL.avgSize * 2, `mean chunk size ${mean} is far from the average`);
});

test('the same bytes are always cut at the same places', () => {
  const data = corpusFile('log-like', 512 * 1024, 'same');
  assert.deepEqual(lengths(data), lengths(Buffer.from(data)));
});

test('a one-byte insert changes only the chunks around it', () => {
  const original = corpusFile('random', 2 << 20, 'shift');
  const shifted = withInsertedByte(original);
  const before = new Set(chunkHashes(original));
  const after = chunkHashes(shifted);
  const changed = after.filter((h) => !before.has(h));
  assert.ok(after.length > 100, 'enough chunks for the test to mean something');
  assert.ok(changed.length >= 1 && changed.length <= 2, `${changed.length} chunks changed`);
});

test('an insert at the very start resynchronises after a chunk or two', () => {
  const original = corpusFile('json', 1 << 20, 'front');
  const shifted = withInsertedByte(original, 0);
  const before = new Set(chunkHashes(original));
  const changed = chunkHashes(shifted).filter((h) => !before.has(h));
  assert.ok(changed.length <= 2, `${changed.length} chunks changed`);
});

test('streaming gives the same chunks as the whole buffer, whatever the piece sizes', async () => {
  const data = corpusFile('log-like', 3 << 20, 'stream');
  const expected = lengths(data);
  for (const pieceSizes of [[1], [7, 4093, 65536], [1 << 20], [3 << 20]]) {
    const source = pieceSizes[0] === 1 ? inPieces(data.subarray(0, 16 * 1024), [1]) : inPieces(data, pieceSizes);
    const want = pieceSizes[0] === 1 ? lengths(data.subarray(0, 16 * 1024)) : expected;
    const got: number[] = [];
    for await (const chunk of chunkStream(source, SMALL)) got.push(chunk.length);
    assert.deepEqual(got, want, `piece sizes ${pieceSizes.join(',')}`);
  }
});

test('chunks yielded by the stream stay intact after later chunks are produced', async () => {
  const data = corpusFile('random', 4 << 20, 'views');
  const kept: Uint8Array[] = [];
  for await (const chunk of chunkStream(inPieces(data, [100_000]), SMALL)) kept.push(chunk);
  assert.deepEqual(Buffer.concat(kept), data);
});

test('an empty stream yields no chunks and a tiny one yields one', async () => {
  const none: Uint8Array[] = [];
  for await (const c of chunkStream(inPieces(new Uint8Array(0), [1]), SMALL)) none.push(c);
  assert.equal(none.length, 0);
  assert.deepEqual(lengths(Uint8Array.of(1, 2, 3)), [3]);
});
