import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { corpusFile } from '../../../bench/corpus/corpus-files.ts';
import { FAST_SHA256_BYTES_PER_MS, HashPool, INLINE_HASH_BYTES, measureSha256BytesPerMs } from './hash-pool.ts';
import { MAX_IDLE_BYTES } from './transfer-buffers.ts';

const sha256 = (data: Uint8Array) => createHash('sha256').update(data).digest('hex');

// Both ways of hashing: on the workers (CPUs without SHA instructions) and on the calling thread.
for (const inline of [false, true]) {
  const label = inline ? 'inline' : 'workers';
  const modePool = new HashPool({ inline });
  const pool = () => modePool;

  test(`${label}: chunk digests match SHA-256 for shared and ordinary buffers, inline and on the worker`, async () => {
    const data = corpusFile('random', 300_000, 'pool');
    const shared = new Uint8Array(new SharedArrayBuffer(data.length));
    shared.set(data);
    const p = pool();
    assert.equal(await p.digest(shared.subarray(1000, 70_000)), sha256(data.subarray(1000, 70_000)));
    assert.equal(await p.digest(data.subarray(5, 6)), sha256(data.subarray(5, 6)));
    assert.equal(await p.digest(new Uint8Array(0)), sha256(new Uint8Array(0)));
    for (const n of [INLINE_HASH_BYTES - 1, INLINE_HASH_BYTES, INLINE_HASH_BYTES + 1, 2 << 20]) {
      const bytes = corpusFile('log-like', n, `pool-${n}`);
      assert.equal(await p.digest(bytes.subarray(0, n)), sha256(bytes.subarray(0, n)), `${n} bytes`);
    }
  });

  test(`${label}: the caller may reuse a buffer as soon as digest or update returns`, async () => {
    const p = pool();
    const data = corpusFile('random', 200_000, 'reuse');
    const scratch = Buffer.from(data);
    const chunk = p.digest(scratch.subarray(0, 100_000));
    const stream = p.openStream();
    stream.update(scratch);
    scratch.fill(0);
    assert.equal(await chunk, sha256(data.subarray(0, 100_000)));
    assert.equal(await stream.digest(), sha256(data));
  });

  test(`${label}: a stream hashes its updates in order, small, growing past the inline size, or large`, async () => {
    const data = corpusFile('log-like', 3 << 20, 'pool-stream');
    const cases: number[][] = [
      [],
      [100],
      [INLINE_HASH_BYTES],
      [INLINE_HASH_BYTES, 1],
      [3000, 5000, 9000, 20_000, 1],
      [70_000, 65_536, 1 << 20, 12_345, 100_000],
      [1 << 20, 1 << 20, 5],
      [(3 << 20) - 7],
    ];
    for (const sizes of cases) {
      const stream = pool().openStream();
      let offset = 0;
      for (const size of sizes) {
        stream.update(data.subarray(offset, offset + size));
        offset += size;
      }
      assert.equal(await stream.digest(), sha256(data.subarray(0, offset)), sizes.join(','));
    }
  });

  test(`${label}: concurrent streams do not mix`, async () => {
    const a = corpusFile('random', 200_000, 'a');
    const b = corpusFile('random', 200_000, 'b');
    const p = pool();
    const sa = p.openStream();
    const sb = p.openStream();
    for (let o = 0; o < a.length; o += 50_000) {
      sa.update(a.subarray(o, o + 50_000));
      sb.update(b.subarray(o, o + 50_000));
    }
    assert.deepEqual(await Promise.all([sa.digest(), sb.digest()]), [sha256(a), sha256(b)]);
  });
}

test('buffers sent to the workers come back and are reused, within the idle cap', async () => {
  const pool = new HashPool({ inline: false });
  const data = corpusFile('random', 4 << 20, 'pool-return');
  for (let round = 0; round < 3; round++) {
    await Promise.all(Array.from({ length: 64 }, (_, k) => pool.digest(data.subarray(k * 65_536, (k + 1) * 65_536))));
    const s = pool.openStream();
    s.update(data);
    await s.digest();
  }
  // Update buffers return asynchronously after the digest; give them a moment.
  await new Promise((r) => setTimeout(r, 50));
  assert.ok(pool.idleBufferBytes > 0, 'buffers came back');
  assert.ok(pool.idleBufferBytes <= MAX_IDLE_BYTES, `idle ${pool.idleBufferBytes} within the cap`);
});

test('on a CPU that hashes fast, the pool hashes on the calling thread and never starts a worker', async () => {
  const pool = new HashPool({ inline: true });
  const data = corpusFile('random', 3 << 20, 'pool-inline');
  assert.equal(await pool.digest(data.subarray(0, 256 * 1024)), sha256(data.subarray(0, 256 * 1024)));
  const s = pool.openStream();
  s.update(data);
  assert.equal(await s.digest(), sha256(data));
  // A second digest of a finished stream is a rejected promise, not a synchronous throw (ingest's error path awaits it).
  await assert.rejects(s.digest());
  assert.equal(pool.idleBufferBytes, 0, 'no transfer buffer was ever taken');
});

test('the shared pool decides by measured SHA-256 throughput', () => {
  const rate = measureSha256BytesPerMs();
  assert.ok(rate > 0);
  // The measurement is noisy on a loaded machine; the decision rule is what is checked.
  assert.equal(new HashPool({ inline: rate >= FAST_SHA256_BYTES_PER_MS }).inline, rate >= FAST_SHA256_BYTES_PER_MS);
  assert.equal(typeof HashPool.shared().inline, 'boolean');
});
