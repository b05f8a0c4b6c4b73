/**
 * One entry of a manifest's chunk list: where a chunk sits in the object and
 * how it is stored. Field names are the manifest's wire names (snake_case),
 * so the list is stored and exported as is.
 */
import type { ChunkCodec } from '../chunking/chunk-codec.ts';

export interface ChunkRef {
  /** `ch_` + hex SHA-256 of the raw chunk. */
  id: string;
  /** Offset of the chunk's first byte in the object. */
  offset: number;
  /** Raw length in bytes. */
  length: number;
  /** Bytes the stored form occupies. */
  stored_length: number;
  codec: ChunkCodec;
}

/** A chunk as reported by ingest: the ref plus whether it was already stored. */
export interface IngestedChunk extends ChunkRef {
  /** True when no bytes were written for it (it existed in the scope, or earlier in the same object). */
  reused: boolean;
}
