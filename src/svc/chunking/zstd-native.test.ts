import assert from 'node:assert/strict';
import { test } from 'node:test';
import zlib from 'node:zlib';
import { corpusFile } from '../../../bench/corpus/corpus-files.ts';
import { ZstdFrameDecoder, ZstdFrameEncoder, zstdFrameContentSize } from './zstd-native.ts';

const text = corpusFile('log-like', 3 * 65_536, 'zstd-native');
const a = text.subarray(0, 65_536);
const b = text.subarray(65_536, 2 * 65_536);
const frameA = zlib.zstdCompressSync(a);
const frameB = zlib.zstdCompressSync(b);

for (const native of [true, false]) {
  const label = native ? 'native context' : 'public fallback';

  test(`${label}: frames decode into the caller's buffer, one after another`, () => {
    const decoder = new ZstdFrameDecoder({ native });
    if (native) assert.equal(decoder.native, true, 'Node 24 exposes the binding this path uses');
    const out = Buffer.alloc(70_000);
    assert.equal(decoder.decodeInto(frameA, out), a.length);
    assert.ok(out.subarray(0, a.length).equals(a));
    assert.equal(decoder.decodeInto(frameB, out), b.length);
    assert.ok(out.subarray(0, b.length).equals(b));
    decoder.close();
  });

  test(`${label}: a damaged, truncated or foreign frame throws and the next frame still decodes`, async () => {
    const decoder = new ZstdFrameDecoder({ native });
    const out = Buffer.alloc(65_536);
    const damaged = Buffer.from(frameA);
    damaged[10]! ^= 0xff;
    damaged[20]! ^= 0xff;
    const bad = [damaged, frameA.subarray(0, frameA.length - 10), Buffer.from('not a zstd frame at all'), Buffer.alloc(0)];
    for (const frame of bad) {
      assert.throws(() => decoder.decodeInto(frame, out));
      assert.equal(decoder.decodeInto(frameB, out), b.length, 'the decoder recovers');
      assert.ok(out.equals(b));
    }
    // The binding's late 'error' events must not surface as uncaught errors.
    await new Promise((resolve) => setTimeout(resolve, 20));
    decoder.close();
  });

  test(`${label}: a frame larger than the buffer throws instead of writing past it`, () => {
    const decoder = new ZstdFrameDecoder({ native });
    const backing = Buffer.alloc(2000, 7);
    const out = backing.subarray(0, 1000);
    assert.throws(() => decoder.decodeInto(frameA, out), /more than 1000 bytes/);
    assert.ok(backing.subarray(1000).every((x) => x === 7), 'nothing written past the view');
    assert.equal(decoder.decodeInto(frameA, Buffer.alloc(65_536)), a.length);
    decoder.close();
  });
}

for (const native of [true, false]) {
  const label = native ? 'native context' : 'public fallback';

  for (const level of [1, 3, 9, 19]) {
    test(`${label}: the level-${level} encoder writes frames byte-identical to zstdCompressSync at that level, one after another`, () => {
      const encoder = new ZstdFrameEncoder(level, { native });
      if (native) assert.equal(encoder.native, true);
      const params = { [zlib.constants.ZSTD_c_compressionLevel]: level, [zlib.constants.ZSTD_c_contentSizeFlag]: 1, [zlib.constants.ZSTD_c_checksumFlag]: 0 };
      const pieces = [a, b, text.subarray(10, 20_000), corpusFile('random', 70_000, 'zstd-native-random'), Buffer.alloc(0), Buffer.from('x')];
      const frames: Buffer[] = [];
      for (const raw of pieces) {
        const frame = encoder.encode(raw);
        assert.ok(frame.equals(zlib.zstdCompressSync(raw, { pledgedSrcSize: raw.length, params })), `same frame for ${raw.length} bytes at level ${level}`);
        frames.push(frame);
      }
      // Each frame is a buffer of its own: a later encode does not overwrite an earlier frame.
      pieces.forEach((raw, i) => assert.ok(zlib.zstdDecompressSync(frames[i]!).equals(raw)));
      // A frame that does not fit its output is refused, and the next frame is still coded at the level.
      assert.equal(encoder.encodeInto(a, Buffer.alloc(100)), -1);
      const out = Buffer.alloc(70_000);
      const written = encoder.encodeInto(b, out);
      assert.ok(out.subarray(0, written).equals(zlib.zstdCompressSync(b, { pledgedSrcSize: b.length, params })), 'after a refused frame');
      encoder.close();
    });
  }
}

test('an encoder level is honoured (a higher level is smaller on text)', () => {
  const low = new ZstdFrameEncoder(1).encode(text);
  const high = new ZstdFrameEncoder(9).encode(text);
  assert.ok(high.length < low.length, `${high.length} < ${low.length}`);
  assert.ok(zlib.zstdDecompressSync(high).equals(text));
});

test('an input larger than the kept scratch space gets space of its own and still codes exactly', () => {
  const encoder = new ZstdFrameEncoder(1);
  const big = corpusFile('log-like', 6 * 1024 * 1024, 'zstd-native-big');
  const frame = encoder.encode(big);
  assert.ok(zlib.zstdDecompressSync(frame).equals(big));
  // A chunk-sized input after it still uses (and fits) the kept space.
  assert.ok(zlib.zstdDecompressSync(encoder.encode(a)).equals(a));
});

test('zstdFrameContentSize reads the size a frame header declares, for every width of the field', () => {
  // 1-byte (single segment), 2-byte (+256), 4-byte and 8-byte fields; 0 included.
  for (const n of [0, 1, 255, 256, 300, 65_791, 65_792, 70_000, 4 * 1024 * 1024 + 3]) {
    const frame = zlib.zstdCompressSync(Buffer.alloc(n, 3), { pledgedSrcSize: n, params: { [zlib.constants.ZSTD_c_contentSizeFlag]: 1 } });
    assert.equal(zstdFrameContentSize(frame), n, `${n} bytes`);
  }
  // A frame streamed without a known size declares none; what is not a zstd frame has none.
  const streamed = zlib.zstdCompressSync(Buffer.alloc(1000, 1), { params: { [zlib.constants.ZSTD_c_contentSizeFlag]: 0 } });
  assert.equal(zstdFrameContentSize(streamed), undefined);
  assert.equal(zstdFrameContentSize(Buffer.from('not a zstd frame')), undefined);
  assert.equal(zstdFrameContentSize(Buffer.from([0x28, 0xb5, 0x2f, 0xfd])), undefined, 'cut short');
});
