/**
 * The pack file format (docs/chunking.md#pack-format, decisions 114 and 157).
 *
 *     pack   = magic "SVCPACK2" (8 bytes) entry*        ("SVCPACK1": version 1, chunk entries only)
 *     entry  = digest (32 bytes)
 *              kind   (1 byte: 0 raw chunk, 1 zstd chunk, 2 frame)
 *              reserved (3 bytes, zero)
 *              length (4 bytes, big-endian: bytes that follow)
 *              body
 *     chunk entry (kind 0, 1): digest = SHA-256 of the raw chunk; body = its stored bytes
 *     frame entry (kind 2):    digest = zero; body = table payload
 *              table   = count (4 bytes) (chunk digest (32 bytes), raw length (4 bytes))*count
 *              payload = a frame (frame-codec.ts) whose decoded bytes are the
 *                        chunks of the table, in order
 *
 * The index (chunk_index) points at a chunk entry's stored bytes, or at a
 * frame's payload plus the chunk's place in the decoded frame, so a read is
 * one ranged read and no header is parsed on the hot path. The headers and
 * tables make a pack self-describing: it can be listed and its index rows
 * rebuilt from the bytes alone ({@link parsePack}). Version 1 packs (written
 * before frames) stay readable: their entries are version 2 chunk entries.
 */
import type { ChunkCodec } from '../chunking/chunk-codec.ts';
import { CHUNK_ID_PREFIX, chunkDigestHex } from './chunk-id.ts';

export const PACK_MAGIC_V1 = Buffer.from('SVCPACK1', 'ascii');
export const PACK_MAGIC = Buffer.from('SVCPACK2', 'ascii');
export const PACK_ENTRY_HEADER_BYTES = 40;
const FRAME_KIND = 2;
const TABLE_ROW_BYTES = 36;

const CODEC_BYTE: Readonly<Record<ChunkCodec, number>> = { raw: 0, zstd: 1 };
const CODEC_OF_BYTE: readonly ChunkCodec[] = ['raw', 'zstd'];

export interface PackEntryInput {
  id: string;
  codec: ChunkCodec;
  data: Uint8Array;
}

/** A frame: its chunks in order (id, raw length) and its encoded payload. */
export interface PackFrameInput {
  frame: Array<{ id: string; rawLength: number }>;
  payload: Uint8Array;
}

/** Where a chunk sits inside a frame's decoded bytes. */
export interface FramePlace {
  skip: number;
  rawLength: number;
  /** Raw bytes of the whole frame. */
  frameRawBytes: number;
}

export interface PackedEntry {
  id: string;
  /** Framed chunks are the compressed form of their chunk: `zstd` in the index and in manifests. */
  codec: ChunkCodec;
  /** Offset of the stored bytes (after the entry header), or of the frame's payload. */
  offset: number;
  /** Stored bytes, or the frame payload's length. */
  length: number;
  /** Set for a chunk inside a frame. */
  frame?: FramePlace;
}

function isFrame(e: PackEntryInput | PackFrameInput): e is PackFrameInput {
  return 'frame' in e;
}

function bodyLength(e: PackEntryInput | PackFrameInput): number {
  return isFrame(e) ? 4 + TABLE_ROW_BYTES * e.frame.length + e.payload.byteLength : e.data.byteLength;
}

/** Assembles a pack; returns the bytes and where each chunk landed. */
export function buildPack(entries: ReadonlyArray<PackEntryInput | PackFrameInput>): { bytes: Buffer; entries: PackedEntry[] } {
  const built = buildPackParts(entries);
  return { bytes: Buffer.concat(built.parts, built.size), entries: built.entries };
}

/**
 * A pack as the pieces it is made of, in order: one buffer of headers and
 * frame tables cut into views, and the entries' own bytes, not copied. Their
 * concatenation is what {@link buildPack} returns; a backend that can write
 * a list of buffers (writev) writes the pack without assembling it, so
 * ingest's chunk bytes are copied into no pack buffer at all.
 */
export function buildPackParts(entries: ReadonlyArray<PackEntryInput | PackFrameInput>): { parts: Uint8Array[]; size: number; entries: PackedEntry[] } {
  let metaSize = PACK_MAGIC.length;
  for (const e of entries) metaSize += PACK_ENTRY_HEADER_BYTES + (isFrame(e) ? 4 + TABLE_ROW_BYTES * e.frame.length : 0);
  const meta = Buffer.allocUnsafe(metaSize);
  PACK_MAGIC.copy(meta, 0);
  const parts: Uint8Array[] = [];
  let m = PACK_MAGIC.length; // next free byte of `meta`
  let metaStart = 0; // start of the `meta` view not yet in `parts`
  let at = PACK_MAGIC.length; // offset in the pack
  const placed: PackedEntry[] = [];
  for (const e of entries) {
    const length = bodyLength(e);
    if (isFrame(e)) meta.fill(0, m, m + 32);
    else meta.write(chunkDigestHex(e.id), m, 32, 'hex');
    meta[m + 32] = isFrame(e) ? FRAME_KIND : CODEC_BYTE[e.codec];
    meta[m + 33] = 0;
    meta[m + 34] = 0;
    meta[m + 35] = 0;
    meta.writeUInt32BE(length, m + 36);
    m += PACK_ENTRY_HEADER_BYTES;
    at += PACK_ENTRY_HEADER_BYTES;
    if (!isFrame(e)) {
      parts.push(meta.subarray(metaStart, m), e.data);
      metaStart = m;
      placed.push({ id: e.id, codec: e.codec, offset: at, length });
      at += length;
      continue;
    }
    meta.writeUInt32BE(e.frame.length, m);
    m += 4;
    for (const c of e.frame) {
      meta.write(chunkDigestHex(c.id), m, 32, 'hex');
      meta.writeUInt32BE(c.rawLength, m + 32);
      m += TABLE_ROW_BYTES;
    }
    parts.push(meta.subarray(metaStart, m), e.payload);
    metaStart = m;
    const row = at + 4 + TABLE_ROW_BYTES * e.frame.length;
    let skip = 0;
    const frameRawBytes = e.frame.reduce((n, c) => n + c.rawLength, 0);
    for (const c of e.frame) {
      placed.push({ id: c.id, codec: 'zstd', offset: row, length: e.payload.byteLength, frame: { skip, rawLength: c.rawLength, frameRawBytes } });
      skip += c.rawLength;
    }
    at += length;
  }
  if (metaStart < m) parts.push(meta.subarray(metaStart, m));
  return { parts, size: at, entries: placed };
}

/**
 * The chunks of a whole pack (version 1 or 2), read from its headers and frame tables.
 * @throws Error when the bytes are not a complete pack (bad magic, a header, table or body cut short, an unknown kind)
 */
export function parsePack(bytes: Uint8Array): PackedEntry[] {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const magic = buf.subarray(0, PACK_MAGIC.length);
  const version = magic.equals(PACK_MAGIC) ? 2 : magic.equals(PACK_MAGIC_V1) ? 1 : 0;
  if (version === 0) throw new Error('not a pack: bad magic');
  const entries: PackedEntry[] = [];
  let at = PACK_MAGIC.length;
  while (at < buf.length) {
    if (at + PACK_ENTRY_HEADER_BYTES > buf.length) throw new Error(`pack cut short in an entry header at ${at}`);
    const kind = buf[at + 32]!;
    const length = buf.readUInt32BE(at + 36);
    const offset = at + PACK_ENTRY_HEADER_BYTES;
    if (offset + length > buf.length) throw new Error(`pack cut short in the entry at ${at}`);
    if (kind === FRAME_KIND && version === 2) {
      const count = length >= 4 ? buf.readUInt32BE(offset) : -1;
      const payload = offset + 4 + TABLE_ROW_BYTES * count;
      if (count < 0 || payload > offset + length) throw new Error(`frame table cut short at ${at}`);
      let frameRawBytes = 0;
      for (let k = 0; k < count; k++) frameRawBytes += buf.readUInt32BE(offset + 4 + TABLE_ROW_BYTES * k + 32);
      let skip = 0;
      for (let k = 0; k < count; k++) {
        const row = offset + 4 + TABLE_ROW_BYTES * k;
        const rawLength = buf.readUInt32BE(row + 32);
        entries.push({ id: CHUNK_ID_PREFIX + buf.toString('hex', row, row + 32), codec: 'zstd', offset: payload, length: offset + length - payload, frame: { skip, rawLength, frameRawBytes } });
        skip += rawLength;
      }
    } else {
      const codec = CODEC_OF_BYTE[kind];
      if (!codec) throw new Error(`unknown entry kind ${kind} at ${at}`);
      entries.push({ id: CHUNK_ID_PREFIX + buf.toString('hex', at, at + 32), codec, offset, length });
    }
    at = offset + length;
  }
  return entries;
}
