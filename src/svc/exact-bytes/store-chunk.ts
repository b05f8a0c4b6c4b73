/**
 * The per-chunk step of ingest: name the chunk, reuse it if the scope already
 * holds it, otherwise encode and store it. Which forms count as "already
 * held" depends on the mode (docs/decisions/023-observe-mode-storage.md):
 *
 * - enforce reuses any stored form and stores new chunks zstd-compressed
 *   where that pays;
 * - observe reuses only a raw copy (byte-identical to what it would write)
 *   and always stores raw, but measures what enforce would have stored.
 */
import type { ChunkCodec, ChunkCompressor, EncodeOptions, RawReason } from '../chunking/chunk-codec.ts';
import { encodeChunk } from '../chunking/chunk-codec.ts';
import { looksIncompressible } from '../chunking/compressibility.ts';
import type { ChunkScope } from '../chunk-store/chunk-scope.ts';
import type { ChunkWriter } from '../chunk-store/chunk-store.ts';

export type IngestMode = 'observe' | 'enforce';

export interface ChunkOutcome {
  id: string;
  codec: ChunkCodec;
  storedLength: number;
  /** Bytes written to the store for this chunk (0 when reused). */
  bytesWritten: number;
  reused: boolean;
  /** Bytes enforce mode would have written for this chunk (equals bytesWritten in enforce). */
  enforceWouldWrite: number;
  /** Set when a new chunk was stored raw, saying why. */
  rawReason?: RawReason;
  /**
   * Set when the chunk went into a frame (decision 157): its share of the
   * frame's compressed bytes, known once the frame is encoded (at the latest
   * when the writer flushes). `storedLength` and `bytesWritten` hold the raw
   * length until then.
   */
  framedLength?: Promise<number>;
}

export interface StoreChunkContext {
  /** The ingest's writer (ChunkStore.openWriter): its flush covers every chunk stored or reused here. */
  store: ChunkWriter;
  scope: ChunkScope;
  mode: IngestMode;
  encode: EncodeOptions;
}

/**
 * Stores one chunk whose id (`ch_` + SHA-256 of `raw`) the caller computed.
 * `compressor` (an offloaded ingest's) codes the chunk's zstd frame if one is
 * wanted, and is told `skip` otherwise — once, as soon as that is known.
 */
export async function storeChunk(raw: Uint8Array, id: string, ctx: StoreChunkContext, compressor?: ChunkCompressor): Promise<ChunkOutcome> {
  const { store, scope } = ctx;
  if (ctx.mode === 'enforce') {
    const existing = await store.stat(scope, id).catch((err: unknown) => {
      compressor?.skip();
      throw err;
    });
    if (existing) {
      compressor?.skip();
      return { id, codec: existing.codec, storedLength: existing.storedLength, bytesWritten: 0, reused: true, enforceWouldWrite: 0 };
    }
    if (store.putFramed && ctx.encode.compression !== false && !ctx.encode.objectIsCompressed && !looksIncompressible(raw)) {
      compressor?.skip();
      const { created, storedLength } = await store.putFramed(scope, id, raw);
      const written = created ? raw.length : 0;
      return { id, codec: 'zstd', storedLength: raw.length, bytesWritten: written, reused: !created, enforceWouldWrite: written, framedLength: storedLength };
    }
    const encoded = await encodeChunk(raw, ctx.encode, compressor);
    const { created } = await store.put(scope, id, encoded.codec, encoded.data);
    const written = created ? encoded.data.length : 0;
    const outcome: ChunkOutcome = { id, codec: encoded.codec, storedLength: encoded.data.length, bytesWritten: written, reused: !created, enforceWouldWrite: written };
    if (encoded.rawReason) outcome.rawReason = encoded.rawReason;
    return outcome;
  }

  // Observe mode measures on this thread (it is rare, and its lookups decide what it would encode).
  compressor?.skip();
  const rawCopy = await store.stat(scope, id, 'raw');
  // What enforce would do: nothing if any form exists, else encode.
  const anyForm = rawCopy ?? (await store.stat(scope, id, 'zstd'));
  const enforceWouldWrite = anyForm ? 0 : (await encodeChunk(raw, ctx.encode)).data.length;
  if (rawCopy) return { id, codec: 'raw', storedLength: rawCopy.storedLength, bytesWritten: 0, reused: true, enforceWouldWrite };
  const { created } = await store.put(scope, id, 'raw', raw);
  const written = created ? raw.length : 0;
  return { id, codec: 'raw', storedLength: raw.length, bytesWritten: written, reused: !created, enforceWouldWrite: Math.min(enforceWouldWrite, written) };
}
