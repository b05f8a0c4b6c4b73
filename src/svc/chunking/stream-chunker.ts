/**
 * Streaming content-defined chunking: turns an async sequence of byte pieces
 * of any sizes into chunks cut by FastCDC, holding at most a few `maxSize`
 * windows in memory whatever the object size.
 *
 * Chunks are yielded as views (no copy) into an internal window. A window is
 * never written again below the read position and is replaced, not reused,
 * when it fills up, so a yielded view stays valid after the next iteration;
 * consumers may keep chunks while later ones are being produced (the ingest
 * pipeline overlaps hashing, compression and writes).
 *
 * The window grows with the input, doubling up to four `maxSize` chunks: a
 * 3 KiB object gets a 3 KiB window, not 1 MiB. Windows are ordinary
 * ArrayBuffers owned by this thread (hash workers get copies), so each is
 * freed by this isolate's own collector as soon as its chunks are dropped
 * (docs/chunking.md "Memory").
 */
import type { ChunkingParams } from './chunking-params.ts';
import { validateChunkingParams } from './chunking-params.ts';
import type { ChunkWindows } from './chunk-windows.ts';
import { createCutPointFinder } from './fastcdc.ts';

/** Chunks of an in-memory buffer (tests, small bodies). Views into `data`. */
export function* chunkBuffer(data: Uint8Array, params?: Partial<ChunkingParams>): Generator<Uint8Array> {
  const finder = createCutPointFinder(validateChunkingParams(params));
  let start = 0;
  while (start < data.length) {
    const length = finder.nextChunkLength(data, start, data.length);
    yield data.subarray(start, start + length);
    start += length;
  }
}

/**
 * Chunks of a stream. Each yielded chunk is a view that remains valid; the
 * concatenation of the chunks equals the concatenation of the input.
 *
 * `boundaries` (ascending absolute offsets) force a cut at each offset, and
 * content-defined chunking restarts there: a format-aware caller (the
 * training adapter cuts at safetensors tensor boundaries) makes an unchanged
 * region chunk identically wherever its neighbours changed.
 *
 * @example
 *   for await (const chunk of chunkStream(fs.createReadStream(path))) hash(chunk);
 */
export async function* chunkStream(source: AsyncIterable<Uint8Array>, params?: Partial<ChunkingParams>, boundaries: readonly number[] = [], windows?: ChunkWindows): AsyncGenerator<Uint8Array> {
  const finder = createCutPointFinder(validateChunkingParams(params));
  const { maxSize } = finder.params;
  let absRead = 0; // absolute offset of readPos
  let nextBoundary = 0; // index into boundaries
  /** End of the next chunk's search range: the window end, or the next forced boundary before it. */
  const limit = (readPos: number, writePos: number): number => {
    while (nextBoundary < boundaries.length && boundaries[nextBoundary]! <= absRead) nextBoundary++;
    if (nextBoundary === boundaries.length) return writePos;
    return Math.min(writePos, readPos + (boundaries[nextBoundary]! - absRead));
  };
  // At full size, four max-size chunks per window: a compaction (a copy of
  // < maxSize bytes) happens at most once per three chunks' worth of input.
  const fullWindow = Math.max(4 * maxSize, 1024 * 1024);
  let window: Uint8Array = new Uint8Array(0);
  let readPos = 0;
  let writePos = 0;
  /** A chunk view, held for its consumer when windows are pooled (the consumer releases it). */
  const cut = (length: number): Uint8Array => {
    const chunk = window.subarray(readPos, readPos + length);
    windows?.hold(chunk);
    readPos += length;
    absRead += length;
    return chunk;
  };

  try {
    for await (const piece of source) {
      let consumed = 0;
      while (consumed < piece.length) {
        if (writePos === window.length) {
          // Move the unread tail into a new window (the old one still backs
          // chunks already handed out), sized for what is known to come: the
          // tail plus the rest of this piece, at least double the last window.
          const unread = writePos - readPos;
          const size = Math.min(fullWindow, Math.max(unread + piece.length - consumed, 2 * window.length));
          const fresh = windows ? windows.acquire(size) : new Uint8Array(size);
          fresh.set(window.subarray(readPos, writePos));
          writePos -= readPos;
          readPos = 0;
          // The chunker's own hold on the old window ends here; chunks cut from it keep theirs.
          if (windows && window.byteLength > 0) windows.release(window);
          window = fresh;
        }
        const take = Math.min(piece.length - consumed, window.length - writePos);
        window.set(piece.subarray(consumed, consumed + take), writePos);
        writePos += take;
        consumed += take;
        while (writePos - readPos >= maxSize) yield cut(finder.nextChunkLength(window, readPos, limit(readPos, writePos)));
      }
    }
    while (readPos < writePos) yield cut(finder.nextChunkLength(window, readPos, limit(readPos, writePos)));
  } finally {
    if (windows && window.byteLength > 0) windows.release(window);
  }
}
