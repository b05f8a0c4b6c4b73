import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { corpusFile } from '../../../bench/corpus/corpus-files.ts';
import { HashPool } from './hash-pool.ts';

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

test('chunk digests match SHA-256 for shared and ordinary buffers', async () => {
  const data = corpusFile('random', 300_000, 'pool');
  const shared = new Uint8Array(new SharedArrayBuffer(data.length));
  shared.set(data);
  const pool = HashPool.shared();
  assert.equal(await pool.digest(shared.subarray(1000, 70_000)), sha256(data.subarray(1000, 70_000)));
  assert.equal(await pool.digest(data.subarray(5, 6)), sha256(data.subarray(5, 6)));
  assert.equal(await pool.digest(new Uint8Array(0)), sha256(new Uint8Array(0)));
});

test('a stream hashes its updates in order, coalesced or not', async () => {
  const data = corpusFile('log-like', 3 << 20, 'pool-stream');
  const shared = new Uint8Array(new SharedArrayBuffer(data.length));
  shared.set(data);
  const stream = HashPool.shared().openStream();
  // Contiguous shared views (coalesced), then an ordinary buffer, then shared again after a gap in order.
  let offset = 0;
  for (const size of [70_000, 65_536, 1 << 20, 12_345]) {
    stream.update(shared.subarray(offset, offset + size));
    offset += size;
  }
  stream.update(Buffer.from(data.subarray(offset, offset + 100_000)));
  offset += 100_000;
  stream.update(shared.subarray(offset));
  assert.equal(await stream.digest(), sha256(data));
});

test('concurrent streams do not mix', async () => {
  const a = corpusFile('random', 200_000, 'a');
  const b = corpusFile('random', 200_000, 'b');
  const pool = HashPool.shared();
  const sa = pool.openStream();
  const sb = pool.openStream();
  for (let o = 0; o < a.length; o += 50_000) {
    sa.update(a.subarray(o, o + 50_000));
    sb.update(b.subarray(o, o + 50_000));
  }
  assert.deepEqual(await Promise.all([sa.digest(), sb.digest()]), [sha256(a), sha256(b)]);
});
