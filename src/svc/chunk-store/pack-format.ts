/**
 * The pack file format (docs/chunking.md#pack-format, decision 114).
 *
 *     pack   = magic "SVCPACK1" (8 bytes) entry*
 *     entry  = digest (32 bytes: SHA-256 of the raw chunk)
 *              codec  (1 byte: 0 raw, 1 zstd)
 *              reserved (3 bytes, zero)
 *              length (4 bytes, big-endian: stored bytes that follow)
 *              stored bytes
 *
 * The index (chunk_index) points at the stored bytes directly, so a read is
 * one ranged read and no header is parsed on the hot path. The per-entry
 * headers make a pack self-describing: it can be listed and its index rows
 * rebuilt from the bytes alone ({@link parsePack}), which is what an
 * operator needs after losing the database, and what tests use to check
 * that a pack is whole.
 */
import type { ChunkCodec } from '../chunking/chunk-codec.ts';
import { CHUNK_ID_PREFIX, chunkDigestHex } from './chunk-id.ts';

export const PACK_MAGIC = Buffer.from('SVCPACK1', 'ascii');
export const PACK_ENTRY_HEADER_BYTES = 40;

const CODEC_BYTE: Readonly<Record<ChunkCodec, number>> = { raw: 0, zstd: 1 };
const CODEC_OF_BYTE: readonly ChunkCodec[] = ['raw', 'zstd'];

export interface PackEntryInput {
  id: string;
  codec: ChunkCodec;
  data: Uint8Array;
}

export interface PackedEntry {
  id: string;
  codec: ChunkCodec;
  /** Offset of the stored bytes (after the entry header). */
  offset: number;
  length: number;
}

/** Assembles a pack; returns the bytes and where each entry's stored bytes landed. */
export function buildPack(entries: readonly PackEntryInput[]): { bytes: Buffer; entries: PackedEntry[] } {
  let size = PACK_MAGIC.length;
  for (const e of entries) size += PACK_ENTRY_HEADER_BYTES + e.data.byteLength;
  const bytes = Buffer.allocUnsafe(size);
  PACK_MAGIC.copy(bytes, 0);
  let at = PACK_MAGIC.length;
  const placed: PackedEntry[] = [];
  for (const e of entries) {
    bytes.write(chunkDigestHex(e.id), at, 32, 'hex');
    bytes[at + 32] = CODEC_BYTE[e.codec];
    bytes[at + 33] = 0;
    bytes[at + 34] = 0;
    bytes[at + 35] = 0;
    bytes.writeUInt32BE(e.data.byteLength, at + 36);
    at += PACK_ENTRY_HEADER_BYTES;
    bytes.set(e.data, at);
    placed.push({ id: e.id, codec: e.codec, offset: at, length: e.data.byteLength });
    at += e.data.byteLength;
  }
  return { bytes, entries: placed };
}

/**
 * The entries of a whole pack, read from its headers.
 * @throws Error when the bytes are not a complete pack (bad magic, a header or body cut short, an unknown codec)
 */
export function parsePack(bytes: Uint8Array): PackedEntry[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (buf.length < PACK_MAGIC.length || !buf.subarray(0, PACK_MAGIC.length).equals(PACK_MAGIC)) throw new Error('not a pack: bad magic');
  const entries: PackedEntry[] = [];
  let at = PACK_MAGIC.length;
  while (at < buf.length) {
    if (at + PACK_ENTRY_HEADER_BYTES > buf.length) throw new Error(`pack cut short in an entry header at ${at}`);
    const codec = CODEC_OF_BYTE[buf[at + 32]!];
    if (!codec) throw new Error(`unknown codec byte ${buf[at + 32]} at ${at}`);
    const length = buf.readUInt32BE(at + 36);
    const offset = at + PACK_ENTRY_HEADER_BYTES;
    if (offset + length > buf.length) throw new Error(`pack cut short in the entry at ${at}`);
    entries.push({ id: CHUNK_ID_PREFIX + buf.toString('hex', at, at + 32), codec, offset, length });
    at = offset + length;
  }
  return entries;
}
