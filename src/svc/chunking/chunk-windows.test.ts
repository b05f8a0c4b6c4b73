import assert from 'node:assert/strict';
import { test } from 'node:test';
import { corpusFile } from '../../../bench/corpus/corpus-files.ts';
import { ChunkWindows } from './chunk-windows.ts';
import { chunkStream } from './stream-chunker.ts';

async function* pieces(data: Uint8Array, size = 65_536): AsyncGenerator<Uint8Array> {
  for (let offset = 0; offset < data.length; offset += size) yield data.subarray(offset, offset + size);
}

test('a window returns to the pool only after its last holder releases it', () => {
  const windows = new ChunkWindows();
  const w = windows.acquire(100_000);
  const a = w.subarray(0, 10);
  const b = w.subarray(10, 20);
  windows.hold(a);
  windows.hold(b);
  windows.release(w); // the chunker's own hold
  assert.equal(windows.lent, 1);
  windows.release(a);
  assert.equal(windows.lent, 1, 'b still holds it');
  assert.equal(windows.idleBytes, 0);
  windows.release(b);
  assert.equal(windows.lent, 0);
  assert.ok(windows.idleBytes >= 100_000, 'back in the pool');
  windows.release(b); // a second release of the same buffer is ignored
  windows.release(new Uint8Array(10)); // so is a view of another buffer
  assert.equal(windows.lent, 0);
});

test('pooled windows cut the same chunks, reuse a few buffers, and never change a chunk while it is held', async () => {
  const data = corpusFile('log-like', 12 * 1024 * 1024, 'chunk-windows');
  const plain: Buffer[] = [];
  for await (const c of chunkStream(pieces(data))) plain.push(Buffer.from(c));

  const windows = new ChunkWindows();
  const held: Array<{ view: Uint8Array; copy: Buffer }> = [];
  const backings = new Set<ArrayBufferLike>();
  let k = 0;
  for await (const c of chunkStream(pieces(data), undefined, [], windows)) {
    backings.add(c.buffer);
    assert.ok(Buffer.from(c).equals(plain[k]!), `chunk ${k} is the same cut`);
    held.push({ view: c, copy: Buffer.from(c) });
    k++;
    // Hold 8 chunks (as ingest keeps 8 in flight), checking each is intact when it is released.
    if (held.length > 8) {
      const oldest = held.shift()!;
      assert.ok(Buffer.from(oldest.view).equals(oldest.copy), 'a held chunk was not overwritten');
      windows.release(oldest.view);
    }
  }
  for (const h of held) {
    assert.ok(Buffer.from(h.view).equals(h.copy));
    windows.release(h.view);
  }
  assert.equal(k, plain.length);
  assert.equal(windows.lent, 0, 'every window came back');
  assert.ok(backings.size <= 6, `${backings.size} windows for ${k} chunks of 12 MiB`);
});

test('a consumer that stops early leaves no window lent but the ones its chunks hold', async () => {
  const windows = new ChunkWindows();
  const kept: Uint8Array[] = [];
  for await (const c of chunkStream(pieces(corpusFile('random', 4 * 1024 * 1024, 'chunk-windows-stop')), undefined, [], windows)) {
    kept.push(c);
    if (kept.length === 3) break;
  }
  // The chunker's own hold ended when the loop stopped; the three chunks still hold their windows.
  assert.equal(windows.lent, new Set(kept.map((c) => c.buffer)).size);
  for (const c of kept) windows.release(c);
  assert.equal(windows.lent, 0);
});
