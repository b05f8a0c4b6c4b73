/**
 * The chunk store over pack files (docs/chunking.md#pack-files, decision 114).
 *
 * New chunks are appended to an in-memory pack per writer and scope; a pack
 * is written whole (one file + one fsync, or one S3 PUT) when it reaches
 * `packTargetBytes` or when its writer flushes. Only after the pack is
 * durable are its entries inserted into the index (chunk_index), with
 * insert-if-absent: the first writer of a chunk wins and a racing loser's
 * copy is dead space for garbage collection. Until then the entry is served
 * from memory to readers of this process.
 *
 * Durability order, the guarantee ingest relies on: a writer's `flush()`
 * seals every pack holding a chunk the writer put *or found pending* (another
 * ingest's chunk it deduplicated against) and resolves only when all of them
 * are durable and indexed; it rejects if any of them failed. Ingest flushes
 * its writer before the manifest is committed, so no manifest can name a
 * chunk a crash could lose. Other processes see a chunk only through the
 * index, i.e. only once it is durable.
 *
 * Frames (decision 157): compressible new chunks given to `putFramed` are
 * collected, in the order they arrive, into frames of ~1 MiB of raw bytes
 * per pack, each compressed as one unit on the frame pool's workers (BWT,
 * then zstd) when it fills or its pack is sealed. Their key codec is `zstd`
 * (the compressed form); the index row names the frame and the chunk's place
 * in it. A framed read decodes the frame (a small cache of decoded frames
 * serves neighbours: rehydration reads chunks in order), slices the chunk and
 * verifies it.
 *
 * Reads: pending entry → index (one ranged read of the pack) → the old
 * one-file-per-chunk layout (`legacy`), so existing chunk directories keep
 * working without a migration. Every read is verified against the chunk's
 * SHA-256 (verify-chunk.ts), whichever tier answered.
 */
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import { type ChunkCodec, decodeZstdChunkInto } from '../chunking/chunk-codec.ts';
import { FRAME_TARGET_BYTES, type FrameCodec, MAX_FRAME_RAW_BYTES, ZSTD_CODEC_BYTE } from '../chunking/frame-codec.ts';
import { FramePool } from '../chunking/frame-pool.ts';
import { zstdFrameContentSize } from '../chunking/zstd-native.ts';
import type { ChunkLocation, ChunkPackRepository, FrameColumns, PackEntryRow } from '../store/repositories/chunk-packs.ts';
import { chunkKeySegments, type ListedChunk } from './chunk-key.ts';
import type { ChunkScope } from './chunk-scope.ts';
import type { ChunkPutResult, ChunkReadRequest, ChunkStore, ChunkWriter, FramedPutResult, StoredChunkInfo } from './chunk-store.ts';
import { chunkIdOfAsync } from './chunk-id.ts';
import { FrameBuffers } from './frame-buffers.ts';
import { FrameCache, type FrameEntry } from './frame-cache.ts';
import { buildPackParts, type PackEntryInput, type PackFrameInput } from './pack-format.ts';
import { newPackId, type PackFiles } from './pack-files.ts';
import { SlabArena, SlabPool } from './pack-slabs.ts';
import type { ReadBuffers } from './read-buffers.ts';
import { chunkReadFailure, decodeVerifiedChunk } from './verify-chunk.ts';

/** The old layout, and whether a scope holds any chunk in it (saves a lookup per new chunk where it holds none). */
export type LegacyChunkLayout = ChunkStore & { holdsScope?(scope: ChunkScope): Promise<boolean>; listChunks?(): AsyncIterable<ListedChunk> };

export const DEFAULT_PACK_TARGET_BYTES = 8 * 1024 * 1024;

/** Packs of one writer being written at once before its puts wait (bounds memory to a few packs per writer). */
const MAX_SEALS_IN_FLIGHT_PER_WRITER = 2;

export interface PackedChunkStoreOptions {
  packs: PackFiles;
  index: ChunkPackRepository;
  /** The old one-file-per-chunk layout at the same location: read (and deleted from), never written. */
  legacy?: LegacyChunkLayout;
  /** A pack is written once its entries reach this many bytes (default 8 MiB; framed chunks count raw). */
  packTargetBytes?: number;
  /** How frames are compressed (default `bwt`; `zstd` is several times faster and stores ~50 % more on text; `none`: no frames, each chunk compressed alone). */
  frameCodec?: FrameCodec | 'none';
  /** Raw bytes per frame (default 1 MiB). */
  frameTargetBytes?: number;
  /** Decoded frames kept for reads, in bytes (default 16 MiB). */
  frameCacheBytes?: number;
  /** Frame encoding and decoding (default: the process-wide pool). */
  framePool?: FramePool;
}

interface PendingPack {
  scope: ChunkScope;
  /** Chunk entries and frames, in pack order. */
  entries: Array<PendingEntry | PendingFrame>;
  bytes: number;
  owner: PackWriter | undefined;
  /** The frame framed entries go to, until it fills. */
  openFrame?: PendingFrame;
  /** Set once the pack is being written; resolves when it is durable and indexed. */
  sealed?: Promise<void>;
  /** Where its entries' bytes live until it has been written. */
  arena: SlabArena;
}

interface PendingEntry {
  key: string;
  id: string;
  codec: ChunkCodec;
  /** Stored bytes; the raw chunk when `frame` is set. */
  data: Buffer;
  pack: PendingPack;
  frame?: PendingFrame;
}

interface PendingFrame {
  chunks: PendingEntry[];
  rawBytes: number;
  /** Set once the frame is closed: its payload. */
  payload?: Promise<Uint8Array>;
  /** Resolves with each chunk's share of the payload once encoded (raw length if encoding failed). */
  shares: Promise<Map<string, number>>;
  settleShares: (shares: Map<string, number>) => void;
}

function isPendingFrame(e: PendingEntry | PendingFrame): e is PendingFrame {
  return 'chunks' in e;
}

/**
 * A chunk's share of its frame's payload: at least 1 byte, and at most its raw
 * length (a frame stored raw costs one codec byte more than its chunks; that
 * byte, like the pack's headers and tables, is not charged to them).
 */
function shareOf(payloadLength: number, rawLength: number, frameRawBytes: number): number {
  return Math.min(rawLength, Math.max(1, Math.round((payloadLength * rawLength) / Math.max(1, frameRawBytes))));
}

/** Bound on a writer's remembered absent keys (a writer that stats without putting must not grow without end). */
const MAX_REMEMBERED_ABSENT = 1024;

const CODECS_PREFERRED: readonly ChunkCodec[] = ['zstd', 'raw'];

function entryKey(scope: ChunkScope, id: string, codec: ChunkCodec): string {
  chunkKeySegments(scope, id, codec); // validates scope and id (TypeError) before either is used
  return `${scope}/${id}.${codec}`;
}

/** A chunk as read: its stored form, or (framed) its raw bytes, not yet verified. */
type Found = { stored?: Uint8Array; raw?: Uint8Array };

/** A run of neighbouring entries in one pack, read with one read (decision 199). */
interface PackRun {
  packId: string;
  start: number;
  end: number;
  members: Array<{ index: number; loc: ChunkLocation }>;
}

/** Bytes one run reads at most. */
const RUN_MAX_BYTES = 4 * 1024 * 1024;
/** Bytes between two entries a run reads through (an entry header is 40). */
const RUN_MAX_GAP = 4096;
/** Where a run's gaps are read to; never read from, so concurrent runs may share it. */
const GAP_SCRATCH = Buffer.alloc(RUN_MAX_GAP);

export class PackedChunkStore implements ChunkStore {
  readonly packs: PackFiles;
  readonly index: ChunkPackRepository;
  readonly legacy: LegacyChunkLayout | undefined;
  /** Per scope: may the old layout hold chunks of it? Asked once per process. */
  readonly #legacyScopes = new Map<ChunkScope, Promise<boolean>>();
  readonly packTargetBytes: number;
  /** Entries written by this process and not yet indexed, by key. */
  readonly #pending = new Map<string, PendingEntry>();
  /** Slabs holding pending entries' bytes until their pack is written (decisions 181, 192). */
  readonly #slabs = new SlabPool();
  /** Puts deciding whether a key is new (a second put of the key waits for the first). */
  readonly #claims = new Map<string, Promise<void>>();
  /** Packs not yet sealed, of every writer. */
  readonly #unsealed = new Set<PendingPack>();
  /** Seals under way. */
  readonly #sealing = new Set<Promise<void>>();
  readonly #defaultWriter: PackWriter;
  readonly frameCodec: FrameCodec | 'none';
  readonly frameTargetBytes: number;
  readonly #framePool: FramePool;
  readonly #frames: FrameCache;
  /** Buffers zstd frames decode into, shared by the frame cache's entries over time. */
  readonly #frameBuffers = new FrameBuffers();

  constructor(options: PackedChunkStoreOptions) {
    this.packs = options.packs;
    this.index = options.index;
    this.legacy = options.legacy;
    this.packTargetBytes = Math.max(1, options.packTargetBytes ?? DEFAULT_PACK_TARGET_BYTES);
    this.frameCodec = options.frameCodec ?? 'bwt';
    this.frameTargetBytes = Math.max(1, options.frameTargetBytes ?? FRAME_TARGET_BYTES);
    this.#framePool = options.framePool ?? FramePool.shared();
    this.#frames = new FrameCache(options.frameCacheBytes ?? DEFAULT_FRAME_CACHE_BYTES, this.#frameBuffers);
    this.#defaultWriter = new PackWriter(this, false);
  }

  /**
   * A writer for one ingest. `packOnly` (`svc chunks migrate`): a key found
   * only in the old layout counts as absent, so its put packs it.
   */
  openWriter(options: { packOnly?: boolean } = {}): ChunkWriter {
    const writer = new PackWriter(this, options.packOnly ?? false);
    if (this.frameCodec !== 'none') return writer;
    // Without putFramed, ingest compresses each chunk alone.
    return { stat: writer.stat.bind(writer), put: writer.put.bind(writer), flush: writer.flush.bind(writer) };
  }

  stat(scope: ChunkScope, id: string, codec?: ChunkCodec): Promise<StoredChunkInfo | undefined> {
    return this.#defaultWriter.stat(scope, id, codec);
  }

  put(scope: ChunkScope, id: string, codec: ChunkCodec, data: Uint8Array): Promise<ChunkPutResult> {
    return this.#defaultWriter.put(scope, id, codec, data);
  }

  async get(scope: ChunkScope, id: string, codec: ChunkCodec, rawLengthHint?: number, _sequential?: boolean, buffers?: ReadBuffers): Promise<Uint8Array> {
    const found = await this.#read(scope, id, codec, buffers);
    return this.#verifiedFrom(id, codec, found, rawLengthHint, buffers);
  }

  /**
   * Several chunks as {@link get} reads each (decision 199): one index query
   * for all of them, and one pack read for each run of neighbouring entries
   * in a pack (their headers, and gaps of up to {@link RUN_MAX_GAP} bytes,
   * read through); a framed chunk is sliced from its frame, found at the
   * place the same query gave (decision 207: a rewritten pack's text is all
   * frames). Each chunk is then decoded and verified on its own, so a
   * damaged one fails alone and names itself, and each is answered as soon
   * as its own run or frame is read. Pending entries, chunks the index does
   * not know and reads that found no pack are read by `get` one by one —
   * the same answers and failures as before.
   */
  getMany(scope: ChunkScope, requests: readonly ChunkReadRequest[], sequential?: boolean, buffers?: ReadBuffers): Array<Promise<Uint8Array>> {
    const alone = (r: ChunkReadRequest) => this.get(scope, r.id, r.codec, r.rawLengthHint, sequential, buffers);
    if (!this.packs.readInto || requests.length < 2) return requests.map(alone);
    const reads = this.#readMany(scope, requests, buffers);
    return requests.map((r, i) =>
      reads
        .then((found) => found[i])
        .then((f) => (f ? this.#verifiedFrom(r.id, r.codec, f, r.rawLengthHint, buffers) : alone(r))),
    );
  }

  /**
   * Where each request's bytes come from: its run's read, or its frame,
   * each settling on its own; undefined where `get` must read.
   */
  async #readMany(scope: ChunkScope, requests: readonly ChunkReadRequest[], buffers?: ReadBuffers): Promise<Array<Promise<Found | undefined> | undefined>> {
    const out: Array<Promise<Found | undefined> | undefined> = new Array(requests.length).fill(undefined);
    const asked: number[] = [];
    for (const [i, r] of requests.entries()) {
      let key: string;
      try {
        key = entryKey(scope, r.id, r.codec);
      } catch {
        continue; // get refuses it
      }
      if (!this.#pending.has(key)) asked.push(i);
    }
    if (asked.length === 0) return out;
    const locations = await this.index.locateMany(
      scope,
      asked.map((i) => ({ chunkId: requests[i]!.id, codec: requests[i]!.codec })),
    );
    const runs: PackRun[] = [];
    let run: PackRun | undefined;
    for (const [k, i] of asked.entries()) {
      const loc = locations[k];
      if (!loc) {
        run = undefined;
        continue;
      }
      if (loc.frame) {
        // Chunks of one frame share its decode (the frame cache); undefined (no pack) sends the chunk to get.
        out[i] = this.#readAt(scope, requests[i]!.id, loc, buffers);
        run = undefined;
        continue;
      }
      const end = loc.pack_offset + loc.stored_length;
      if (run && run.packId === loc.pack_id && loc.pack_offset >= run.end && loc.pack_offset - run.end <= RUN_MAX_GAP && end - run.start <= RUN_MAX_BYTES) {
        run.members.push({ index: i, loc });
        run.end = end;
      } else {
        run = { packId: loc.pack_id, start: loc.pack_offset, end, members: [{ index: i, loc }] };
        runs.push(run);
      }
    }
    for (const r of runs) {
      const found: Array<{ stored: Uint8Array } | undefined> = [];
      const read = this.#readRun(scope, r, found, buffers);
      for (const [j, m] of r.members.entries()) out[m.index] = read.then(() => found[j]);
    }
    return out;
  }

  /** Reads one run; `found[j]` is then its j-th member's stored bytes (all undefined when the read failed). */
  async #readRun(scope: ChunkScope, run: PackRun, found: Array<{ stored: Uint8Array } | undefined>, buffers?: ReadBuffers): Promise<void> {
    const targets: Uint8Array[] = [];
    const stored: Buffer[] = [];
    let at = run.start;
    for (const { loc } of run.members) {
      // Between two entries: the next one's header (or small entries of other objects), read into scratch and dropped.
      if (loc.pack_offset > at) targets.push(GAP_SCRATCH.subarray(0, loc.pack_offset - at));
      const b = buffers ? buffers.borrow(loc.stored_length) : Buffer.allocUnsafe(loc.stored_length);
      stored.push(b);
      targets.push(b);
      at = loc.pack_offset + loc.stored_length;
    }
    let got: number | undefined;
    try {
      got = await this.packs.readInto!(scope, run.packId, run.start, targets);
    } catch {
      got = undefined;
    }
    if (got === undefined) {
      // The pack is gone (a repack moved the entries) or the read failed: get reads each chunk again alone,
      // looking it up afresh, and reports what it finds.
      for (const b of stored) buffers?.giveBack(b);
      return;
    }
    for (const [j, { loc }] of run.members.entries()) {
      // A pack shorter than the index says: each chunk gets the bytes there were, and its hash check reports it
      // corrupt, as a read of the chunk alone would.
      const have = Math.max(0, Math.min(loc.stored_length, got - (loc.pack_offset - run.start)));
      found[j] = { stored: have === loc.stored_length ? stored[j]! : stored[j]!.subarray(0, have) };
    }
  }

  /** A read's bytes decoded and verified against `id` (shared by get and getMany). */
  async #verifiedFrom(id: string, codec: ChunkCodec, found: Found, rawLengthHint?: number, buffers?: ReadBuffers): Promise<Uint8Array> {
    if (found.raw) return verified(id, found.raw);
    const stored = found.stored!;
    // A borrowed read of a compressed chunk decodes into a borrowed buffer too (decision 177): a whole-object
    // restore then allocates nothing per chunk. Other reads decode into a buffer of their own (decodeChunk).
    if (buffers && codec === 'zstd' && rawLengthHint !== undefined && rawLengthHint > 0) {
      const out = buffers.borrow(rawLengthHint);
      let length: number;
      try {
        length = decodeZstdChunkInto(stored, out);
      } catch (err) {
        buffers.giveBack(out);
        throw chunkReadFailure(id, 'undecodable', err);
      } finally {
        buffers.giveBack(stored);
      }
      const decoded = out.subarray(0, length);
      try {
        return await verified(id, decoded);
      } catch (err) {
        buffers.giveBack(out);
        throw err;
      }
    }
    const decoded = await decodeVerifiedChunk(id, codec, stored, rawLengthHint);
    // A raw chunk is its stored bytes: a borrowed buffer goes on to the caller, who gives it back. A decoded one
    // is a buffer of the decoder's own, and the stored form is no longer needed.
    if (decoded !== stored) buffers?.giveBack(stored);
    return decoded;
  }

  /** A framed chunk's stored form is re-encoded as one zstd frame of its own (exports carry chunks in stored form). */
  async readStored(scope: ChunkScope, id: string, codec: ChunkCodec): Promise<Uint8Array> {
    const found = await this.#read(scope, id, codec);
    if (!found.raw) return found.stored!;
    // Always a zstd frame (encodeChunk could decide raw), since the key says zstd.
    const raw = await verified(id, found.raw);
    return zstdCompress(raw, { pledgedSrcSize: raw.byteLength, params: { [zlib.constants.ZSTD_c_compressionLevel]: 3 } });
  }

  /** The stored bytes of an unframed form, or the (unverified) raw bytes of a framed one. */
  async #read(scope: ChunkScope, id: string, codec: ChunkCodec, buffers?: ReadBuffers): Promise<Found> {
    const key = entryKey(scope, id, codec);
    const pending = this.#pending.get(key);
    // A copy: the entry may be a view into the ingest's chunker window, which
    // a caller's cache (verified-chunk-cache.ts) must not keep alive.
    if (pending) return pending.frame ? { raw: Buffer.from(pending.data) } : { stored: Buffer.from(pending.data) };
    const loc = await this.index.locate(scope, id, codec);
    if (loc) {
      const got = await this.#readAt(scope, id, loc, buffers);
      if (got) return got;
      // The pack went away under the index row: a repack moved the entry
      // between our lookup and our read. Look once more.
      const again = await this.index.locate(scope, id, codec);
      if (again && again.pack_id !== loc.pack_id) {
        const moved = await this.#readAt(scope, id, again);
        if (moved) return moved;
      }
      throw chunkReadFailure(id, 'missing');
    }
    if (this.legacy) {
      try {
        return { stored: await this.legacy.readStored(scope, id, codec) };
      } catch (err) {
        // `svc chunks migrate` packed it and removed the file between the index lookup and this read.
        const moved = await this.index.locate(scope, id, codec);
        const got = moved ? await this.#readAt(scope, id, moved) : undefined;
        if (got) return got;
        throw err;
      }
    }
    throw chunkReadFailure(id, 'missing');
  }

  /** After a migration emptied the old layout of `scope`: ask it again before the next lookup there. */
  forgetLegacyScope(scope: ChunkScope): void {
    this.#legacyScopes.delete(scope);
  }

  /** Undefined when the pack does not exist. */
  async #readAt(scope: ChunkScope, id: string, loc: ChunkLocation, buffers?: ReadBuffers): Promise<Found | undefined> {
    if (!loc.frame) {
      const bytes = await this.packs.read(scope, loc.pack_id, loc.pack_offset, loc.stored_length, buffers);
      return bytes ? { stored: bytes } : undefined;
    }
    const { frame_skip: skip, raw_length: length } = loc.frame;
    const raw = await this.withFrame(scope, id, loc.pack_id, loc.pack_offset, loc.frame, (decoded) => {
      if (skip + length > decoded.byteLength) throw chunkReadFailure(id, 'corrupt');
      // A copy: the frame's buffer is reused once the frame leaves the cache, and a view would keep it from being
      // (the verified-chunk cache holds chunks for long). A restore lends the buffer (decision 173).
      const out = buffers ? buffers.borrow(length) : Buffer.allocUnsafe(length);
      out.set(decoded.subarray(skip, skip + length));
      return out;
    });
    return raw ? { raw } : undefined;
  }

  /**
   * Runs `use` on a frame's decoded bytes, through the cache (concurrent
   * readers of one frame share one decode); undefined when the pack does not
   * exist. `use` runs synchronously and must not keep a view of the bytes: a
   * zstd frame decodes into a pooled buffer (decision 207), which decodes
   * another frame once this one has left the cache and no reader is inside
   * `use` any more.
   * @throws SvcError `rehydration_failed` (`undecodable`, naming `id`) when the payload does not decode
   */
  async withFrame<T>(scope: ChunkScope, id: string, packId: string, offset: number, frame: FrameColumns, use: (decoded: Uint8Array) => T): Promise<T | undefined> {
    const cacheKey = `${scope}/${packId}/${offset}/${frame.frame_length}`;
    const entry = this.#frames.get(cacheKey) ?? this.#frames.add(cacheKey, (e) => this.#decodeFrame(scope, packId, offset, frame, e));
    entry.users++;
    try {
      const decoded = await entry.value;
      if (decoded === null) {
        this.#frames.delete(cacheKey, entry);
        throw chunkReadFailure(id, 'undecodable');
      }
      if (decoded === undefined) {
        this.#frames.delete(cacheKey, entry);
        return undefined;
      }
      this.#frames.settled(entry, decoded.byteLength);
      return use(decoded);
    } finally {
      this.#frames.done(entry);
    }
  }

  /** A frame's decoded bytes; undefined when the pack does not exist, null when the payload does not decode. */
  async #decodeFrame(scope: ChunkScope, packId: string, offset: number, frame: FrameColumns, entry: FrameEntry): Promise<Uint8Array | null | undefined> {
    const payload = await this.packs.read(scope, packId, offset, frame.frame_length);
    if (!payload) return undefined;
    try {
      // A zstd frame declares its size: it decodes into a pooled buffer. Others (BWT) decode into one of their own.
      const declared = payload[0] === ZSTD_CODEC_BYTE ? zstdFrameContentSize(payload.subarray(1)) : undefined;
      if (declared === undefined || declared === 0 || declared > MAX_FRAME_RAW_BYTES) return await this.#framePool.decode(payload);
      const decoded = await this.#framePool.decodeInto(payload, this.#frameBuffers.acquire(declared));
      entry.pooled = decoded.buffer as ArrayBuffer;
      return decoded;
    } catch {
      return null;
    }
  }

  /**
   * Removes one stored form (garbage collection): the index row, so the pack
   * bytes become dead space that a repack reclaims, and an old-layout file.
   */
  async delete(scope: ChunkScope, id: string, codec: ChunkCodec): Promise<boolean> {
    const pending = this.#pending.get(entryKey(scope, id, codec));
    if (pending) await this.seal(pending.pack); // written first, so that there is one place to delete it from
    const indexed = await this.index.deleteEntry(scope, id, codec);
    const old = this.legacy ? await this.legacy.delete(scope, id, codec) : false;
    return indexed || old;
  }

  /** Seals every pending pack of every writer and waits for every seal under way. */
  async flush(): Promise<void> {
    for (const pack of [...this.#unsealed]) this.seal(pack);
    const running = [...this.#sealing];
    await Promise.all(running);
    await this.legacy?.flush();
  }

  /** Where a stored form lives, for operators' tooling and tests that damage chunks on purpose. */
  async locate(scope: ChunkScope, id: string, codec: ChunkCodec): Promise<(ChunkLocation & { scope: ChunkScope }) | undefined> {
    await this.flush();
    const loc = await this.index.locate(scope, id, codec);
    return loc ? { ...loc, scope } : undefined;
  }

  /**
   * Indexed or old-layout stored form (not pending ones). The old layout is
   * asked only for scopes that had chunks there when this process first
   * looked: a scope that had none (every scope created since packs) costs no
   * lookup per new chunk. Should an older svc add old-layout chunks to such a
   * scope later, this answers "absent" for them and a new copy is packed: a
   * missed dedupe, never a wrong read (reads always fall back).
   */
  async statDurable(scope: ChunkScope, id: string, codec?: ChunkCodec, packOnly = false): Promise<StoredChunkInfo | undefined> {
    const forms = await this.index.locateForms(scope, id);
    for (const candidate of codec ? [codec] : CODECS_PREFERRED) {
      const f = forms.find((x) => x.codec === candidate);
      if (f) return { codec: candidate, storedLength: f.stored_length };
    }
    if (packOnly || !this.legacy || !(await this.#legacyMayHold(scope))) return undefined;
    return this.legacy.stat(scope, id, codec);
  }

  #legacyMayHold(scope: ChunkScope): Promise<boolean> {
    const legacy = this.legacy;
    if (!legacy?.holdsScope) return Promise.resolve(legacy !== undefined);
    let known = this.#legacyScopes.get(scope);
    if (!known) {
      known = legacy.holdsScope(scope).catch(() => true);
      this.#legacyScopes.set(scope, known);
    }
    return known;
  }

  /** @internal for PackWriter */
  pendingEntry(scope: ChunkScope, id: string, codec: ChunkCodec): PendingEntry | undefined {
    return this.#pending.get(entryKey(scope, id, codec));
  }

  /**
   * Adds a new entry unless the key exists (pending, indexed or old layout).
   * @internal for PackWriter
   * @returns the entry when it was created here, or the pending entry that
   *   already holds the key, or undefined when it is durable already
   */
  async addEntry(writer: PackWriter, scope: ChunkScope, id: string, codec: ChunkCodec, data: Uint8Array, knownAbsent = false, framed = false): Promise<{ created: boolean; entry?: PendingEntry }> {
    const key = entryKey(scope, id, codec);
    for (;;) {
      const pending = this.#pending.get(key);
      if (pending) return { created: false, entry: pending };
      const claim = this.#claims.get(key);
      if (!claim) break;
      await claim;
    }
    let release!: () => void;
    this.#claims.set(key, new Promise<void>((resolve) => (release = resolve)));
    try {
      // A writer that has just been told the key is absent skips the second
      // lookup; a racing process is handled by insert-if-absent.
      if (!knownAbsent && (await this.statDurable(scope, id, codec, writer.packOnly))) return { created: false };
      const pack = writer.openPack(scope);
      // Copied into the pack's slabs until the pack is written (decisions 181, 192): the caller may reuse
      // its bytes once put resolves (ingest's chunker windows are pooled), and no pack pins them.
      const bytes = pack.arena.copy(data);
      const entry: PendingEntry = { key, id, codec, data: bytes, pack };
      if (framed) this.#addToFrame(pack, entry);
      else pack.entries.push(entry);
      pack.bytes += entry.data.byteLength;
      this.#unsealed.add(pack);
      this.#pending.set(key, entry);
      return { created: true, entry };
    } finally {
      this.#claims.delete(key);
      release();
    }
  }

  /** @internal */
  newPack(scope: ChunkScope, owner: PackWriter): PendingPack {
    return { scope, entries: [], bytes: 0, owner, arena: new SlabArena(this.#slabs) };
  }

  #addToFrame(pack: PendingPack, entry: PendingEntry): void {
    let frame = pack.openFrame;
    if (!frame) {
      let settleShares!: (shares: Map<string, number>) => void;
      const shares = new Promise<Map<string, number>>((resolve) => (settleShares = resolve));
      frame = { chunks: [], rawBytes: 0, shares, settleShares };
      pack.openFrame = frame;
      pack.entries.push(frame);
    }
    entry.frame = frame;
    frame.chunks.push(entry);
    frame.rawBytes += entry.data.byteLength;
    if (frame.rawBytes >= this.frameTargetBytes) this.#closeFrame(pack);
  }

  /** Starts encoding the open frame of a pack (on the frame pool); new framed entries go to a new frame. */
  #closeFrame(pack: PendingPack): void {
    const frame = pack.openFrame;
    if (!frame) return;
    pack.openFrame = undefined;
    // The frame's raw bytes in a buffer of their own, handed (transferred) to
    // the frame worker: the chunks keep their own bytes for pending reads.
    const raw = new Uint8Array(frame.rawBytes);
    let at = 0;
    for (const c of frame.chunks) {
      raw.set(c.data, at);
      at += c.data.byteLength;
    }
    frame.payload = this.#framePool.encode(raw, this.frameCodec === 'none' ? 'bwt' : this.frameCodec, undefined, true);
    frame.payload.then(
      (payload) => frame.settleShares(new Map(frame.chunks.map((c) => [c.id, shareOf(payload.byteLength, c.data.byteLength, frame.rawBytes)]))),
      () => frame.settleShares(new Map(frame.chunks.map((c) => [c.id, c.data.byteLength]))),
    );
  }

  /** @internal the stored length a framed entry will have, once its frame is encoded */
  framedShare(entry: PendingEntry): Promise<number> {
    const frame = entry.frame;
    if (!frame) return Promise.resolve(entry.data.byteLength);
    return frame.shares.then((m) => m.get(entry.id) ?? entry.data.byteLength);
  }

  /**
   * Writes a pack durably, then indexes its entries; idempotent.
   * @internal for PackWriter
   */
  seal(pack: PendingPack): Promise<void> {
    if (pack.sealed) return pack.sealed;
    this.#unsealed.delete(pack);
    pack.owner?.forget(pack);
    const sealed = this.#writePack(pack).finally(() => {
      for (const e of pack.entries) {
        for (const c of isPendingFrame(e) ? e.chunks : [e]) {
          if (this.#pending.get(c.key) === c) this.#pending.delete(c.key);
        }
      }
      // Written (or failed): nothing reads an entry's bytes after this (pending reads copied them).
      pack.arena.release();
      this.#sealing.delete(sealed);
    });
    pack.sealed = sealed;
    this.#sealing.add(sealed);
    sealed.catch(() => undefined); // reported to every writer that flushes it
    return sealed;
  }

  async #writePack(pack: PendingPack): Promise<void> {
    this.#closeFrame(pack);
    if (pack.entries.length === 0) return;
    const inputs: Array<PackEntryInput | PackFrameInput> = [];
    for (const e of pack.entries) {
      if (!isPendingFrame(e)) inputs.push(e);
      else inputs.push({ frame: e.chunks.map((c) => ({ id: c.id, rawLength: c.data.byteLength })), payload: await e.payload! });
    }
    const packId = newPackId();
    // The entries' bytes go to the backend as they are (writev on the
    // filesystem): no pack-sized copy of them is made here.
    const built = buildPackParts(inputs);
    if (this.packs.writeParts) await this.packs.writeParts(pack.scope, packId, built.parts);
    else await this.packs.write(pack.scope, packId, Buffer.concat(built.parts, built.size));
    await this.index.insertPack(
      { pack_id: packId, scope: pack.scope, size_bytes: built.size, entry_count: built.entries.length, created_at: new Date().toISOString() },
      built.entries.map((e) => indexRowOf(e)),
    );
  }
}

/** The index row of a placed entry (a framed chunk's stored length is its share of the frame). */
export function indexRowOf(e: import('./pack-format.ts').PackedEntry): PackEntryRow {
  if (!e.frame) return { chunk_id: e.id, codec: e.codec, pack_offset: e.offset, stored_length: e.length };
  return {
    chunk_id: e.id,
    codec: e.codec,
    pack_offset: e.offset,
    stored_length: shareOf(e.length, e.frame.rawLength, e.frame.frameRawBytes),
    frame: { frame_length: e.length, frame_skip: e.frame.skip, raw_length: e.frame.rawLength },
  };
}

async function verified(id: string, raw: Uint8Array): Promise<Uint8Array> {
  if ((await chunkIdOfAsync(raw)) !== id) throw chunkReadFailure(id, 'corrupt');
  return raw;
}

const DEFAULT_FRAME_CACHE_BYTES = 16 * 1024 * 1024;

const zstdCompress = promisify(zlib.zstdCompress);

/**
 * One ingest's view of the store: what it put or found pending is what its
 * `flush()` makes durable, and only a failure among those fails it.
 */
class PackWriter implements ChunkWriter {
  readonly #store: PackedChunkStore;
  readonly #open = new Map<ChunkScope, PendingPack>();
  /** Packs holding entries this writer relies on, until its next flush. */
  #deps = new Set<PendingPack>();
  /** Keys `stat` just reported absent (see put). */
  readonly #absent = new Set<string>();
  /** Seals this writer started because a pack filled up, until they settle. */
  readonly #writing = new Set<Promise<void>>();

  /** Keys only the old layout holds count as absent (migration). */
  readonly packOnly: boolean;

  constructor(store: PackedChunkStore, packOnly = false) {
    this.#store = store;
    this.packOnly = packOnly;
  }

  async stat(scope: ChunkScope, id: string, codec?: ChunkCodec): Promise<StoredChunkInfo | undefined> {
    const candidates = codec ? [codec] : CODECS_PREFERRED;
    for (const candidate of candidates) {
      const pending = this.#store.pendingEntry(scope, id, candidate);
      if (pending) {
        this.#deps.add(pending.pack);
        return { codec: candidate, storedLength: pending.data.byteLength };
      }
    }
    const durable = await this.#store.statDurable(scope, id, codec, this.packOnly);
    if (durable) return durable;
    // The put that usually follows need not look again.
    for (const candidate of candidates) {
      if (this.#absent.size >= MAX_REMEMBERED_ABSENT) this.#absent.clear();
      this.#absent.add(`${scope}/${id}.${candidate}`);
    }
    return undefined;
  }

  async put(scope: ChunkScope, id: string, codec: ChunkCodec, data: Uint8Array): Promise<ChunkPutResult> {
    const absentKey = `${scope}/${id}.${codec}`;
    const knownAbsent = this.#absent.delete(absentKey);
    const { created, entry } = await this.#store.addEntry(this, scope, id, codec, data, knownAbsent, false);
    if (entry) this.#deps.add(entry.pack);
    if (created && entry && entry.pack.bytes >= this.#store.packTargetBytes) {
      const settled = this.#store.seal(entry.pack).then(
        () => undefined,
        () => undefined,
      );
      this.#writing.add(settled);
      void settled.then(() => this.#writing.delete(settled));
      await this.#throttle();
    }
    return { created };
  }

  /** A compressible new chunk, stored in a frame with its neighbours (see {@link ChunkWriter.putFramed}). */
  async putFramed(scope: ChunkScope, id: string, raw: Uint8Array): Promise<FramedPutResult> {
    const absentKey = `${scope}/${id}.zstd`;
    const knownAbsent = this.#absent.delete(absentKey);
    const { created, entry } = await this.#store.addEntry(this, scope, id, 'zstd', raw, knownAbsent, true);
    if (entry) this.#deps.add(entry.pack);
    const storedLength = entry ? this.#store.framedShare(entry) : this.#store.statDurable(scope, id, 'zstd').then((s) => s?.storedLength ?? raw.byteLength);
    storedLength.catch(() => undefined);
    if (created && entry && entry.pack.bytes >= this.#store.packTargetBytes) await this.#sealFull(entry.pack);
    return { created, storedLength };
  }

  async #sealFull(pack: PendingPack): Promise<void> {
    const settled = this.#store.seal(pack).then(
      () => undefined,
      () => undefined,
    );
    this.#writing.add(settled);
    void settled.then(() => this.#writing.delete(settled));
    await this.#throttle();
  }

  async flush(): Promise<void> {
    const deps = [...this.#deps];
    this.#deps = new Set();
    await Promise.all(deps.map((pack) => this.#store.seal(pack)));
  }

  /** @internal the pack new entries of `scope` go to */
  openPack(scope: ChunkScope): PendingPack {
    let pack = this.#open.get(scope);
    if (!pack) {
      pack = this.#store.newPack(scope, this);
      this.#open.set(scope, pack);
    }
    return pack;
  }

  /** @internal a pack of this writer is being sealed: new entries go to a new one */
  forget(pack: PendingPack): void {
    if (this.#open.get(pack.scope) === pack) this.#open.delete(pack.scope);
  }

  /** Waits while more than a few of this writer's packs are being written (their outcome is still checked at flush). */
  async #throttle(): Promise<void> {
    while (this.#writing.size > MAX_SEALS_IN_FLIGHT_PER_WRITER) await Promise.race(this.#writing);
  }
}
