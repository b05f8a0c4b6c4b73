import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { test } from 'node:test';
import { chunkStream } from './stream-chunker.ts';

function bytes(seed: number, n: number): Uint8Array {
  const out = new Uint8Array(n);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < n; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out[i] = x & 0xff;
  }
  return out;
}

async function cut(data: Uint8Array, boundaries?: number[], piece = 100_003): Promise<Uint8Array[]> {
  const source = (async function* () {
    for (let i = 0; i < data.length; i += piece) yield data.subarray(i, Math.min(data.length, i + piece));
  })();
  const out: Uint8Array[] = [];
  for await (const c of chunkStream(source, undefined, boundaries)) out.push(Uint8Array.from(c));
  return out;
}

const ids = (chunks: Uint8Array[]) => new Set(chunks.map((c) => createHash('sha256').update(c).digest('hex')));

test('forced boundaries are cut points and the chunks still concatenate to the input', async () => {
  const data = bytes(7, 1_500_000);
  const boundaries = [10, 70_001, 70_002, 600_000, 1_499_999];
  const chunks = await cut(data, boundaries);
  assert.deepEqual(Buffer.concat(chunks), Buffer.from(data));
  const ends = new Set<number>();
  let at = 0;
  for (const c of chunks) ends.add((at += c.length));
  for (const b of boundaries) assert.ok(ends.has(b), `a chunk ends at ${b}`);
  assert.ok(chunks.every((c) => c.length <= 256 * 1024));
});

test('a region between boundaries chunks identically whatever its neighbours, unlike plain CDC', async () => {
  // [changed A | frozen F | changed B]: F keeps its chunks when A and B change only with boundaries.
  const F = bytes(99, 700_000);
  const file = (seed: number, aLen: number) => Buffer.concat([bytes(seed, aLen), F, bytes(seed + 1, 300_000)]);
  const one = file(1, 333_333);
  const two = file(2, 333_333);
  const b = (aLen: number) => [aLen, aLen + F.length];
  const frozen = ids(await cut(F, [], 1 << 20));
  const aligned1 = ids(await cut(one, b(333_333)));
  const aligned2 = ids(await cut(two, b(333_333)));
  for (const id of frozen) assert.ok(aligned1.has(id) && aligned2.has(id), 'every chunk of F is reused with boundaries');
  const plain1 = ids(await cut(one));
  const plain2 = ids(await cut(two));
  const sharedPlain = [...plain1].filter((id) => plain2.has(id)).length;
  const sharedAligned = [...aligned1].filter((id) => aligned2.has(id)).length;
  assert.ok(sharedAligned >= frozen.size && sharedAligned > sharedPlain - 1, `aligned ${sharedAligned} vs plain ${sharedPlain}`);
});

test('windows are sized to the input: a small object gets a small buffer, a large one at most four max-size chunks', async () => {
  const windowsOf = async (data: Uint8Array, piece: number) => {
    const sizes = new Set<number>();
    const chunks: Uint8Array[] = [];
    const source = (async function* () {
      for (let i = 0; i < data.length; i += piece) yield data.subarray(i, Math.min(data.length, i + piece));
    })();
    for await (const c of chunkStream(source)) {
      sizes.add(c.buffer.byteLength);
      chunks.push(c);
    }
    assert.deepEqual(Buffer.concat(chunks), Buffer.from(data));
    return [...sizes];
  };
  // One 3 KiB piece (a JSON put): one 3 KiB window, not 1 MiB.
  assert.deepEqual(await windowsOf(bytes(1, 3000), 3000), [3000]);
  // Many tiny pieces: the window doubles as needed, never past what the object needs twice over.
  const tiny = await windowsOf(bytes(2, 5000), 7);
  assert.ok(Math.max(...tiny) < 2 * 5000, `windows ${tiny.join(', ')}`);
  // A large object in 64 KiB pieces: the window grows to 4 × max_size (1 MiB by default) and no further.
  const large = await windowsOf(bytes(3, 5 << 20), 65_536);
  assert.equal(Math.max(...large), 1 << 20);
});
