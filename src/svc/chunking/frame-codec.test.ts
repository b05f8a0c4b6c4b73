import assert from 'node:assert/strict';
import { test } from 'node:test';
import { corpusFile } from '../../../bench/corpus/corpus-files.ts';
import { bwtDecode, bwtEncode } from './bwt.ts';
import { decodeFrameSync, encodeFrameSync, frameCodecOf } from './frame-codec.ts';
import { FramePool } from './frame-pool.ts';

test('the Burrows–Wheeler transform inverts exactly, on edge and repetitive inputs', () => {
  const inputs: Buffer[] = ['', 'a', 'aa', 'ab', 'ba', 'banana', 'mississippi', 'abababababab', '\u0000\u0000\u0001\u00ff\u00ff'].map((s) => Buffer.from(s, 'latin1'));
  inputs.push(Buffer.alloc(70_000, 0x61), corpusFile('random', 50_000, 'bwt'), corpusFile('log-like', 100_000, 'bwt'), corpusFile('repeated', 300_000, 'bwt'));
  for (const input of inputs) {
    const { last, primary } = bwtEncode(input);
    assert.equal(last.length, input.length);
    assert.ok(Buffer.from(bwtDecode(last, primary)).equals(input), `length ${input.length}`);
  }
  assert.deepEqual(Buffer.from(bwtEncode(Buffer.from('banana')).last).toString(), 'annbaa');
  assert.throws(() => bwtDecode(Buffer.from('abc'), 4), RangeError);
});

test('frames round-trip with every codec; text shrinks well below per-chunk zstd; random falls back to raw', () => {
  const text = Buffer.concat([corpusFile('log-like', 512 * 1024, 'frame'), corpusFile('json', 512 * 1024, 'frame')]);
  for (const codec of ['raw', 'zstd', 'bwt'] as const) {
    const payload = encodeFrameSync(text, codec);
    assert.equal(frameCodecOf(payload), codec);
    assert.ok(Buffer.from(decodeFrameSync(payload)).equals(text));
  }
  assert.ok(encodeFrameSync(text, 'bwt').length < encodeFrameSync(text, 'zstd', 3).length * 0.8, 'BWT frames beat zstd 3 on text by a wide margin');
  const random = corpusFile('random', 256 * 1024, 'frame');
  const stored = encodeFrameSync(random, 'bwt');
  assert.equal(frameCodecOf(stored), 'raw');
  assert.equal(stored.length, random.length + 1);
  assert.ok(Buffer.from(decodeFrameSync(stored)).equals(random));
});

test('a damaged frame payload fails to decode or decodes to different bytes (the chunk hash check catches the rest)', () => {
  const text = corpusFile('json', 200_000, 'damaged');
  const payload = encodeFrameSync(text, 'bwt');
  assert.throws(() => decodeFrameSync(Buffer.from([9, 1, 2, 3])), /unknown frame codec/);
  assert.throws(() => decodeFrameSync(payload.subarray(0, payload.length - 10)));
  const flipped = Buffer.from(payload);
  flipped[3] = flipped[3]! ^ 0xff; // the primary index
  let same = false;
  try {
    same = Buffer.from(decodeFrameSync(flipped)).equals(text);
  } catch {
    same = false;
  }
  assert.equal(same, false);
});

test('the frame pool encodes and decodes on workers, in parallel, with the same bytes as the inline codec', async () => {
  const pool = new FramePool(2);
  const frames = [0, 1, 2, 3].map((i) => corpusFile('log-like', 300_000, `pool-${i}`));
  const payloads = await Promise.all(frames.map((f) => pool.encode(f, 'bwt')));
  for (let i = 0; i < frames.length; i++) {
    assert.ok(Buffer.from(payloads[i]!).equals(encodeFrameSync(frames[i]!, 'bwt')));
    assert.ok(Buffer.from(await pool.decode(payloads[i]!)).equals(frames[i]!));
  }
  await assert.rejects(pool.decode(Buffer.concat([Buffer.from([2, 0, 0, 0, 0]), Buffer.alloc(10_000, 7)])));
  // The caller's bytes are not transferred away.
  assert.equal(frames[0]!.length, 300_000);
});
