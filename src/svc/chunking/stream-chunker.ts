/**
 * Streaming content-defined chunking: turns an async sequence of byte pieces
 * of any sizes into chunks cut by FastCDC, holding at most a few `maxSize`
 * windows in memory whatever the object size.
 *
 * Chunks are yielded as views (no copy) into an internal window backed by a
 * SharedArrayBuffer, so hashing workers can read them in place. A window is
 * never written again below the read position and is replaced, not reused,
 * when it fills up, so a yielded view stays valid after the next iteration;
 * consumers may keep chunks while later ones are being produced (the ingest
 * pipeline overlaps hashing, compression and writes).
 */
import type { ChunkingParams } from './chunking-params.ts';
import { validateChunkingParams } from './chunking-params.ts';
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
 * @example
 *   for await (const chunk of chunkStream(fs.createReadStream(path))) hash(chunk);
 */
export async function* chunkStream(source: AsyncIterable<Uint8Array>, params?: Partial<ChunkingParams>): AsyncGenerator<Uint8Array> {
  const finder = createCutPointFinder(validateChunkingParams(params));
  const { maxSize } = finder.params;
  // Four max-size chunks per window: a compaction (a copy of < maxSize bytes)
  // happens at most once per three chunks' worth of input.
  const windowSize = Math.max(4 * maxSize, 1024 * 1024);
  let window = new Uint8Array(new SharedArrayBuffer(windowSize));
  let readPos = 0;
  let writePos = 0;

  for await (const piece of source) {
    let consumed = 0;
    while (consumed < piece.length) {
      if (writePos === window.length) {
        // Move the unread tail into a fresh window; the old one still backs
        // chunks already handed out.
        const fresh = new Uint8Array(new SharedArrayBuffer(windowSize));
        fresh.set(window.subarray(readPos, writePos));
        writePos -= readPos;
        readPos = 0;
        window = fresh;
      }
      const take = Math.min(piece.length - consumed, window.length - writePos);
      window.set(piece.subarray(consumed, consumed + take), writePos);
      writePos += take;
      consumed += take;
      while (writePos - readPos >= maxSize) {
        const length = finder.nextChunkLength(window, readPos, writePos);
        yield window.subarray(readPos, readPos + length);
        readPos += length;
      }
    }
  }
  while (readPos < writePos) {
    const length = finder.nextChunkLength(window, readPos, writePos);
    yield window.subarray(readPos, readPos + length);
    readPos += length;
  }
}
