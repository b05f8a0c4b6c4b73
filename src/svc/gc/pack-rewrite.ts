/**
 * Rewriting one pack, for garbage collection (decisions 116, 157 and 207):
 * its live (indexed) entries are read, each verified against its SHA-256,
 * and written into a new pack; then the index moves to the new pack in one
 * transaction, and the old pack is forgotten and deleted.
 *
 * - Chunk entries are copied as stored, except under `densify`
 *   (recompression): the chunks stored alone with zstd are decoded and
 *   written again as dense frames (zstd at a high level over `frameBytes` of
 *   consecutive chunks), where the frame is smaller than the chunks were.
 *   Context across chunks and a high level store text ~30 % smaller than
 *   zstd 3 on 64 KiB chunks, at ~2–3 MiB/s of encoding per core: work for a
 *   maintenance run, not for ingest. zstd decodes such frames at ~0.6–1.8
 *   GB/s.
 * - The live chunks of frames are decoded and framed again without the dead
 *   ones, as `reframe` says (a recompressed pack's at its dense level).
 * - A damaged entry stays where it is (so a restore test still finds and
 *   reports it), and with it the old pack.
 *
 * Crash safety: the new pack is written and recorded before any index row
 * moves, the rows move in one transaction, and the old pack goes last. A
 * kill between two steps leaves an extra pack no row names or an old pack no
 * row names; a later run deletes either. Readers that located an entry in
 * the old pack before it went look it up again (packed-chunk-store.ts).
 */
import type { ChunkScope } from '../chunk-store/chunk-scope.ts';
import { chunkIdOfAsync } from '../chunk-store/chunk-id.ts';
import { buildPack, type PackEntryInput, type PackFrameInput } from '../chunk-store/pack-format.ts';
import { newPackId } from '../chunk-store/pack-files.ts';
import { indexRowOf, type PackedChunkStore } from '../chunk-store/packed-chunk-store.ts';
import { decodeVerifiedChunk } from '../chunk-store/verify-chunk.ts';
import type { FrameCodec } from '../chunking/frame-codec.ts';
import { FramePool } from '../chunking/frame-pool.ts';
import type { ChunkPackRepository } from '../store/repositories/chunk-packs.ts';

/** How a rewrite treats each kind of entry. */
export interface RewriteOptions {
  /** Chunks stored alone with zstd go into dense frames at this level and size (absent: copied as stored). */
  densify?: { level: number; frameBytes: number };
  /** How the live chunks of frames are framed again (a recompressed pack's frames keep their density). */
  reframe: { codec: FrameCodec; level?: number; frameBytes: number };
  /** The pack is rewritten for its dead bytes: written even when densifying gains nothing. */
  dropsDead: boolean;
  /** The new pack's `recompressed_at`: now when densifying, else the old pack's. */
  recompressedAt: string | null;
}

export interface PackRewrite {
  /** Bytes of storage given back: old pack minus new pack, or 0 when the old pack had to stay. */
  savedBytes: number;
  /** Entries that failed verification and were left in the old pack. */
  damagedEntries: number;
  /** Chunks now in dense frames. */
  densifiedChunks: number;
  /** False when nothing was written (no live entry could be kept, or densifying alone gained too little). */
  rewritten: boolean;
}

/** Densifying alone rewrites a pack only if it saves at least this share of the pack (else the pack is stamped as tried). */
const MIN_DENSIFY_GAIN = 0.02;

interface Chunk {
  id: string;
  raw: Uint8Array;
  /** Its stored entry, to copy when a dense frame would not be smaller. */
  stored?: PackEntryInput;
}

/** Consecutive chunks cut into groups of at least `target` raw bytes (the last may be smaller). */
function groupsOf(chunks: readonly Chunk[], target: number): Chunk[][] {
  const groups: Chunk[][] = [];
  for (let start = 0; start < chunks.length; ) {
    let end = start;
    let bytes = 0;
    while (end < chunks.length && (end === start || bytes < target)) bytes += chunks[end++]!.raw.byteLength;
    groups.push(chunks.slice(start, end));
    start = end;
  }
  return groups;
}

const frameOf = (group: readonly Chunk[], payload: Uint8Array): PackFrameInput => ({ frame: group.map((c) => ({ id: c.id, rawLength: c.raw.byteLength })), payload });

/** Each group's frame payload; all at once, so the pool runs as many as it has workers and a run uses the machine. */
function encodeGroups(groups: readonly Chunk[][], codec: FrameCodec, level?: number): Promise<Uint8Array[]> {
  const pool = FramePool.shared();
  return Promise.all(groups.map((g) => pool.encode(Buffer.concat(g.map((c) => c.raw)), codec, level)));
}

/**
 * Rewrites `packId` (see the module comment). The index is the source of
 * truth for what is live: rows that moved or went meanwhile are not moved.
 */
export async function rewritePack(store: PackedChunkStore, index: ChunkPackRepository, scope: ChunkScope, packId: string, oldSize: number, options: RewriteOptions): Promise<PackRewrite> {
  const result: PackRewrite = { savedBytes: 0, damagedEntries: 0, densifiedChunks: 0, rewritten: false };
  const keep: Array<PackEntryInput | PackFrameInput> = [];
  const reframed: Chunk[] = [];
  const dense: Chunk[] = [];
  for (const e of await index.entriesOf(packId)) {
    try {
      if (e.frame) {
        const { frame_skip: skip, raw_length: length } = e.frame;
        // A copy: the frame's buffer may decode another frame before this pack is built.
        const raw = await store.withFrame(scope, e.chunk_id, packId, e.pack_offset, e.frame, (decoded) => decoded.slice(skip, skip + length));
        if (!raw) throw new Error('missing');
        if (raw.byteLength !== length || (await chunkIdOfAsync(raw)) !== e.chunk_id) throw new Error('corrupt');
        reframed.push({ id: e.chunk_id, raw });
        continue;
      }
      const bytes = await store.packs.read(scope, packId, e.pack_offset, e.stored_length);
      if (!bytes) throw new Error('missing');
      const raw = await decodeVerifiedChunk(e.chunk_id, e.codec, bytes, undefined);
      const stored: PackEntryInput = { id: e.chunk_id, codec: e.codec, data: bytes };
      if (options.densify && e.codec === 'zstd') dense.push({ id: e.chunk_id, raw, stored });
      else keep.push(stored);
    } catch {
      result.damagedEntries++;
    }
  }

  const reframeGroups = groupsOf(reframed, options.reframe.frameBytes);
  const reframedPayloads = await encodeGroups(reframeGroups, options.reframe.codec, options.reframe.level);
  reframeGroups.forEach((g, i) => keep.push(frameOf(g, reframedPayloads[i]!)));

  if (options.densify) {
    const denseGroups = groupsOf(dense, options.densify.frameBytes);
    const densePayloads = await encodeGroups(denseGroups, 'zstd', options.densify.level);
    let gain = 0;
    denseGroups.forEach((g, i) => {
      const payload = densePayloads[i]!;
      const before = g.reduce((n, c) => n + c.stored!.data.byteLength, 0);
      // A frame's table costs 36 bytes per chunk where an entry header costs 40: payloads compare alone.
      if (payload.byteLength < before) {
        keep.push(frameOf(g, payload));
        result.densifiedChunks += g.length;
        gain += before - payload.byteLength;
      } else {
        for (const c of g) keep.push(c.stored!);
      }
    });
    if (!options.dropsDead && gain < oldSize * MIN_DENSIFY_GAIN) {
      // Not worth a rewrite; stamped, so that the next runs do not spend the encoding again.
      await index.markRecompressed(packId, new Date().toISOString());
      result.densifiedChunks = 0;
      return result;
    }
  }
  if (keep.length === 0) return result;
  const built = buildPack(keep);
  const newId = newPackId();
  const now = new Date().toISOString();
  await store.packs.write(scope, newId, built.bytes);
  await index.insertPackRow({ pack_id: newId, scope, size_bytes: built.bytes.byteLength, entry_count: built.entries.length, created_at: now, recompressed_at: options.densify ? now : options.recompressedAt });
  await index.relocateAll(
    scope,
    packId,
    built.entries.map((placed) => ({ ...indexRowOf(placed), pack_id: newId })),
  );
  result.rewritten = true;
  if (await index.deletePackIfEmpty(packId)) {
    await store.packs.delete(scope, packId);
    result.savedBytes = oldSize - built.bytes.byteLength;
  }
  return result;
}
