/**
 * The hashing and compression of a large object's ingest on worker threads,
 * so that one ingest uses more than the main thread (issue 12: "use both
 * cores"; decision 189).
 *
 * Measured before (CLI → `svc serve`, 444 MiB of random, log-like, JSON and
 * repeated data, 2 cores): the server's main thread was busy ~80–90 % of an
 * ingest and was what bounded it, and SHA-256 (whole object and each chunk,
 * ~1.2 ms/MiB) and zstd (~2.7 ms per MiB of text) were half of its work.
 * Those two go to a worker, and so does the chunker (FastCDC) where it can
 * ({@link OffloadStream.chunked}, decision 203: the object's bytes are copied
 * once, into slots, and the worker cuts them); the dedupe lookups and the
 * pack writes stay on the main thread.
 *
 * **Batches.** A round trip per chunk costs more than hashing it on a CPU with
 * SHA instructions (decision 154). The chunks of up to 1 MiB of the object
 * are copied into one slot and travel together; every worker answer covers
 * the whole batch.
 *
 * **Two steps.** Compression is only worth doing for chunks the scope does
 * not hold yet, which is known only after each chunk's id was looked up. The
 * worker hashes a batch; the main thread decides chunk by chunk
 * ({@link OffloadedChunk.compress} or {@link OffloadedChunk.skip}); then the
 * worker codes the chosen ones. Re-ingesting data the scope holds costs no
 * compression, as on the main thread.
 *
 * **Cutting on the worker.** With the default chunk sizes (no forced
 * boundaries, largest chunk ≤ {@link SCAN_HEAD_BYTES}), each slot takes the
 * next 1 MiB of raw bytes after a free head; the worker moves the previous
 * slot's unfinished chunk into that head, so every chunk lies whole in one
 * slot, cuts and hashes, and the main thread gets the slot's chunks in one
 * answer. The cut points are the main thread's (a cut depends on at most
 * `maxSize` bytes from the chunk's start), so deduplication across the two
 * paths holds. Other chunkings are cut on the main thread and sent with
 * {@link OffloadStream.add}.
 *
 * **Slots, not messages, carry the bytes.** A buffer transferred or allocated
 * per message is a new external allocation to V8 on each side, and that
 * growth starts full collections of the heap (the first version of this did
 * that and tripled the collectors' CPU). The pool makes {@link SLOTS} slots of
 * shared memory once, hands them to every worker once, and batches name their
 * slot by number. A slot goes back to the pool when the worker is done with
 * it and every chunk of its batch has been stored (the chunk writers are done
 * with a chunk's bytes when `put` resolves); a stream waits for a free slot,
 * which bounds the memory of any number of concurrent ingests. A chunk larger
 * than a slot gets buffers of its own.
 *
 * One stream keeps to one worker, so its batches, and its whole-object hash,
 * stay in order. The pool is started on first use with one worker per core
 * beyond the first (at most {@link MAX_WORKERS}); the workers keep the
 * process alive only while a stream is open. A worker that fails rejects
 * every open stream, and the next ingest gets a fresh pool.
 *
 * Small objects, objects of unknown size and single-core machines keep the
 * main-thread path ({@link offloadsIngest}).
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import { type ChunkCompressor, compressZstdInline } from '../chunking/chunk-codec.ts';
import type { ChunkingParams } from '../chunking/chunking-params.ts';
import type { OffloadReply, OffloadRequest, SlotBuffers } from './ingest-worker.ts';

/** Objects declared at least this large are hashed and compressed on a worker. */
export const OFFLOAD_MIN_BYTES = 4 * 1024 * 1024;

/** Raw bytes of the object one slot (one batch) takes. */
export const SLOT_BYTES = 1024 * 1024;
/**
 * Room before a scanned slot's bytes for the chunk carried over from the slot
 * before it (at most one maximum chunk): 256 KiB, the default `maxSize`.
 */
export const SCAN_HEAD_BYTES = 256 * 1024;
/** A shared slot's raw half: a scanned slot's head and its bytes (a chunked batch fills it all). */
const SLOT_INPUT_BYTES = SLOT_BYTES + SCAN_HEAD_BYTES;
/** Frame space per slot: the frames of a batch's compressible chunks; one that does not fit is coded on the main thread. */
const SLOT_OUTPUT_BYTES = SLOT_INPUT_BYTES + SLOT_INPUT_BYTES / 8;
/** Slots in a pool: ~21 MiB of shared memory, two or three batches in flight for each of a few concurrent ingests. */
export const SLOTS = 8;

/** Workers in the pool at most (one per core beyond the main thread's, up to this). */
export const MAX_WORKERS = 4;

/**
 * True when the worker can cut the object too ({@link OffloadStream.chunked}):
 * no forced boundaries, and a largest chunk that fits a slot's head.
 */
export function scansOnWorker(params: Readonly<ChunkingParams>, boundaries: readonly number[] | undefined): boolean {
  return (boundaries?.length ?? 0) === 0 && params.maxSize <= SCAN_HEAD_BYTES;
}

/** True when an ingest of `sizeHint` bytes should use the offload on this machine. */
export function offloadsIngest(sizeHint: number | undefined, cores = availableParallelism()): boolean {
  return sizeHint !== undefined && sizeHint >= OFFLOAD_MIN_BYTES && cores >= 2;
}

/** One chunk handed to the worker: its digest to come, one decision about compressing it, then `release`. */
export interface OffloadedChunk extends ChunkCompressor {
  /** Hex SHA-256 of the chunk (without the `ch_` prefix). */
  readonly digest: Promise<string>;
  /** True once the chunk's batch went to the worker: awaiting {@link digest} before that needs {@link OffloadStream.send} first. */
  readonly sent: boolean;
  /** The caller is done with the chunk and any frame `compress` gave (after its store call settled). Once. */
  release(): void;
}

/** A chunk the worker cut ({@link OffloadStream.chunked}): its bytes (a view into its slot, valid until released) and its handle. */
export interface ScannedChunk {
  chunk: Uint8Array;
  handle: OffloadedChunk;
}

/** A stream's bytes on their way to being cut on the worker. */
interface ScanState {
  params: Readonly<ChunkingParams>;
  /** Each answered slot's chunks, in object order, not yet handed to the caller. */
  ready: ScannedChunk[][];
  /** The caller waiting for the next slot's chunks. */
  waiter: Deferred<void> | undefined;
  /** Slots sent and not answered yet. */
  pending: number;
  /** The last slot has been sent. */
  ended: boolean;
  /** Reading the source failed (a short or mismatched body, a broken connection): the caller gets this error. */
  error: unknown;
  /** The caller stopped: the source is read no further. */
  stopped: boolean;
}

type Deferred<T> = PromiseWithResolvers<T>;

/** A promise with its resolvers whose rejection is never an unhandled one (a chunk whose ingest failed may never await it). */
function deferred<T>(): Deferred<T> {
  const d = Promise.withResolvers<T>();
  d.promise.catch(() => undefined);
  return d;
}

interface Slot {
  /** Index in the pool's shared slots, or -1 for a one-off slot of an oversized chunk. */
  index: number;
  buffers: SlotBuffers;
  input: Uint8Array;
  output: Uint8Array;
}

function newSlot(index: number, inputBytes: number, outputBytes: number): Slot {
  const buffers = { input: new SharedArrayBuffer(inputBytes), output: new SharedArrayBuffer(outputBytes) };
  return { index, buffers, input: new Uint8Array(buffers.input), output: new Uint8Array(buffers.output) };
}

interface Batch {
  id: number;
  slot: Slot;
  used: number;
  /** Where each chunk starts in the slot's raw half (the chunked path lays them end to end from 0). */
  offsets: number[];
  lengths: number[];
  digests: Deferred<string>[];
  /** Per chunk: undefined until decided; a waiter when it is to be compressed, null when not. */
  decisions: Array<Deferred<Uint8Array> | null | undefined>;
  undecided: number;
  /** Chunks not released yet. */
  holders: number;
  level: number | undefined;
  sent: boolean;
  /** The worker answered the encode step: it no longer touches the slot. */
  settled: boolean;
  slotReturned: boolean;
}

export class IngestOffloadPool {
  static #shared: IngestOffloadPool | undefined;

  /** The process-wide pool (workers started on first use). */
  static shared(): IngestOffloadPool {
    IngestOffloadPool.#shared ??= new IngestOffloadPool();
    return IngestOffloadPool.#shared;
  }

  readonly #size: number;
  readonly #slotCount: number;
  #workers: Worker[] | undefined;
  #slots: Slot[] = [];
  readonly #freeSlots: Slot[] = [];
  readonly #slotWaiters: Array<Deferred<Slot>> = [];
  readonly #streams = new Map<number, OffloadStream>();
  #nextStream = 0;
  #nextWorker = 0;
  #broken: Error | undefined;

  /**
   * Frames the workers coded, batches they hashed, and of those the slots they also cut (tests, and a check that
   * duplicates cost no compression).
   */
  readonly counts = { batches: 0, frames: 0, scanned: 0 };

  constructor(options: { workers?: number; slots?: number } = {}) {
    this.#size = Math.max(1, Math.min(MAX_WORKERS, options.workers ?? availableParallelism() - 1));
    this.#slotCount = Math.max(1, options.slots ?? SLOTS);
  }

  /** A stream for one object's chunks, bound to one worker. */
  openStream(): OffloadStream {
    if (this.#broken) throw this.#broken;
    const workers = this.#started();
    const worker = workers[this.#nextWorker++ % workers.length]!;
    const stream = new OffloadStream(this, ++this.#nextStream, worker);
    if (this.#streams.size === 0) for (const w of workers) w.ref();
    this.#streams.set(stream.id, stream);
    return stream;
  }

  /** Shared slots not in use (tests). */
  get freeSlots(): number {
    return this.#freeSlots.length;
  }

  /** Streams open (tests). */
  get openStreams(): number {
    return this.#streams.size;
  }

  /** @internal a slot for a batch whose first chunk has `bytes` bytes; waits while every shared slot is in use. */
  acquireSlot(bytes: number): Slot | Promise<Slot> {
    if (this.#broken) throw this.#broken;
    if (bytes > SLOT_INPUT_BYTES) return newSlot(-1, bytes, bytes + (bytes >>> 3) + 1024);
    const free = this.#freeSlots.pop();
    if (free) return free;
    const waiter = deferred<Slot>();
    this.#slotWaiters.push(waiter);
    return waiter.promise;
  }

  /** @internal */
  releaseSlot(slot: Slot): void {
    if (slot.index < 0 || this.#slots[slot.index] !== slot) return; // one-off, or a slot of an arena given up
    const waiter = this.#slotWaiters.shift();
    if (waiter) waiter.resolve(slot);
    else this.#freeSlots.push(slot);
  }

  /** @internal */
  post(worker: Worker, request: OffloadRequest): void {
    if (this.#broken) throw this.#broken;
    worker.postMessage(request);
  }

  /** @internal */
  closed(stream: OffloadStream): void {
    if (!this.#streams.delete(stream.id)) return;
    if (this.#streams.size === 0) for (const w of this.#workers ?? []) w.unref();
  }

  /** Stops the workers (tests; the shared pool lives as long as the process). */
  async close(): Promise<void> {
    const workers = this.#workers ?? [];
    this.#fail(new Error('the ingest offload pool was closed'));
    this.#workers = undefined;
    await Promise.all(workers.map((w) => w.terminate()));
  }

  #started(): Worker[] {
    if (this.#workers) return this.#workers;
    const url = new URL('./ingest-worker.ts', import.meta.url);
    this.#slots = Array.from({ length: this.#slotCount }, (_, i) => newSlot(i, SLOT_INPUT_BYTES, SLOT_OUTPUT_BYTES));
    this.#freeSlots.push(...this.#slots);
    const slots = this.#slots.map((s) => s.buffers);
    this.#workers = Array.from({ length: this.#size }, () => {
      const w = new Worker(url);
      w.unref();
      w.on('message', (reply: OffloadReply) => this.#streams.get(reply.stream)?.settle(reply));
      w.on('error', (err) => this.#fail(err));
      w.on('exit', (code) => this.#fail(new Error(`ingest worker exited with code ${code}`)));
      w.postMessage({ op: 'slots', slots } satisfies OffloadRequest);
      return w;
    });
    return this.#workers;
  }

  #fail(err: Error): void {
    this.#broken ??= err;
    for (const stream of [...this.#streams.values()]) stream.fail(err, false);
    this.#streams.clear();
    // Slots a dead worker may still hold are never handed out again.
    this.#slots = [];
    this.#freeSlots.length = 0;
    for (const waiter of this.#slotWaiters.splice(0)) waiter.reject(err);
    if (IngestOffloadPool.#shared === this) IngestOffloadPool.#shared = undefined; // the next ingest gets a fresh pool
  }
}

/**
 * One object's chunks on their way through a worker. `add` each chunk in
 * object order (the bytes are copied; the caller may reuse them once `add`
 * resolves), decide and release each one, then `digest` once for the whole
 * object — or `abort`.
 */
export class OffloadStream {
  readonly id: number;
  readonly #pool: IngestOffloadPool;
  readonly #worker: Worker;
  #open: Batch | undefined;
  readonly #batches = new Map<number, Batch>();
  #nextBatch = 0;
  #object: Deferred<string> | undefined;
  #failed: Error | undefined;
  /** Sent batches the worker may still touch when the stream failed: their slots return on `dropped`. */
  #awaitingDrop: Batch[] = [];
  /** Set while the stream's bytes are cut on the worker ({@link chunked}). */
  #scan: ScanState | undefined;

  constructor(pool: IngestOffloadPool, id: number, worker: Worker) {
    this.#pool = pool;
    this.id = id;
    this.#worker = worker;
  }

  /** Copies a chunk into the open batch (sending the batch first when the chunk does not fit). */
  async add(chunk: Uint8Array): Promise<OffloadedChunk> {
    if (this.#failed) throw this.#failed;
    let batch = this.#open;
    if (batch && batch.used + chunk.byteLength > batch.slot.input.byteLength) {
      this.send();
      batch = undefined;
    }
    if (!batch) {
      const slot = await this.#pool.acquireSlot(chunk.byteLength);
      if (this.#failed) {
        this.#pool.releaseSlot(slot);
        throw this.#failed;
      }
      batch = this.#newBatch(slot);
      this.#open = batch;
    }
    const index = batch.lengths.length;
    batch.slot.input.set(chunk, batch.used);
    batch.offsets.push(batch.used);
    batch.used += chunk.byteLength;
    batch.lengths.push(chunk.byteLength);
    const digest = deferred<string>();
    batch.digests.push(digest);
    batch.decisions.push(undefined);
    batch.undecided++;
    batch.holders++;
    return this.#handle(batch, index, digest.promise);
  }

  /**
   * The object's chunks, cut on the worker (decision 203): the bytes of
   * `source` are copied once, into slots, and the worker finds the cut points,
   * hashes each chunk and the whole object, and answers each slot with its
   * chunks — yielded here a slot's worth at a time, in object order. The
   * caller must start every chunk of a group before it waits on any of them
   * (a slot's encode step waits for every chunk of the slot to be decided),
   * and release each. `params` must be validated and satisfy
   * {@link scansOnWorker}. An error reading `source` is thrown as it is.
   */
  async *chunked(source: AsyncIterable<Uint8Array>, params: Readonly<ChunkingParams>): AsyncGenerator<ScannedChunk[]> {
    if (this.#failed) throw this.#failed;
    if (this.#scan || this.#batches.size > 0) throw new Error('an offload stream is chunked once, and not also fed by add()');
    const scan: ScanState = { params, ready: [], waiter: undefined, pending: 0, ended: false, error: undefined, stopped: false };
    this.#scan = scan;
    const pumped = this.#pump(source, scan).catch((err: unknown) => {
      scan.error ??= err;
      scan.waiter?.resolve();
    });
    try {
      for (;;) {
        const group = scan.ready.shift();
        if (group) {
          yield group;
          continue;
        }
        if (scan.error !== undefined) throw scan.error;
        if (this.#failed) throw this.#failed;
        if (scan.ended && scan.pending === 0) return;
        scan.waiter = deferred<void>();
        await scan.waiter.promise;
        scan.waiter = undefined;
      }
    } finally {
      scan.stopped = true;
      // Chunks never handed out hold their slots: give them up.
      for (const group of scan.ready.splice(0)) for (const c of group) c.handle.release();
      void pumped;
    }
  }

  /** Copies the source into slots and sends each full one to be cut; the last one says so. */
  async #pump(source: AsyncIterable<Uint8Array>, scan: ScanState): Promise<void> {
    let batch: Batch | undefined;
    try {
      for await (const piece of source) {
        for (let at = 0; at < piece.byteLength; ) {
          // Checked before every copy: a failed stream gives its unsent slot back, and another stream may have it.
          if (scan.stopped || this.#failed) return;
          batch ??= await this.#scanBatch(scan);
          if (!batch) return;
          const take = Math.min(piece.byteLength - at, batch.slot.input.byteLength - batch.used);
          batch.slot.input.set(piece.subarray(at, at + take), batch.used);
          batch.used += take;
          at += take;
          if (batch.used === batch.slot.input.byteLength) {
            this.#sendScan(scan, batch, false);
            batch = undefined;
          }
        }
      }
      if (scan.stopped || this.#failed) return;
      batch ??= await this.#scanBatch(scan);
      if (!batch) return;
      this.#sendScan(scan, batch, true);
      batch = undefined;
      scan.ended = true;
    } finally {
      // Stopped, failed or the source broke with a slot half filled: it never went to the worker.
      if (batch && !batch.slotReturned) {
        batch.slotReturned = true;
        this.#batches.delete(batch.id);
        this.#pool.releaseSlot(batch.slot);
      }
    }
  }

  /** A fresh batch on a shared slot for the next bytes, or undefined when the stream stopped meanwhile. */
  async #scanBatch(scan: ScanState): Promise<Batch | undefined> {
    if (scan.stopped || this.#failed) return undefined;
    const slot = await this.#pool.acquireSlot(SLOT_BYTES);
    if (scan.stopped || this.#failed) {
      this.#pool.releaseSlot(slot);
      return undefined;
    }
    const batch = this.#newBatch(slot);
    batch.used = SCAN_HEAD_BYTES;
    return batch;
  }

  #sendScan(scan: ScanState, batch: Batch, last: boolean): void {
    batch.sent = true;
    scan.pending++;
    this.#pool.post(this.#worker, { op: 'scan', stream: this.id, batch: batch.id, slot: batch.slot.index, begin: SCAN_HEAD_BYTES, end: batch.used, last, params: scan.params });
  }

  #newBatch(slot: Slot): Batch {
    const batch: Batch = { id: ++this.#nextBatch, slot, used: 0, offsets: [], lengths: [], digests: [], decisions: [], undecided: 0, holders: 0, level: undefined, sent: false, settled: false, slotReturned: false };
    this.#batches.set(batch.id, batch);
    return batch;
  }

  /** The handle of chunk `index` of `batch` (one holder of its slot until released). */
  #handle(batch: Batch, index: number, digest: Promise<string>): OffloadedChunk {
    let released = false;
    return {
      digest,
      get sent() {
        return batch.sent;
      },
      compress: (raw, level) => this.#compress(batch, index, raw, level),
      skip: () => this.#decide(batch, index, null),
      release: () => {
        if (released) return;
        released = true;
        batch.holders--;
        this.#maybeReturnSlot(batch);
      },
    };
  }

  /** A slot's chunks, as the worker cut them: each becomes a handle, and the slot's group is handed to the caller. */
  #scanned(batch: Batch, reply: Extract<OffloadReply, { op: 'chunks' }>): void {
    const scan = this.#scan!;
    scan.pending--;
    this.#pool.counts.batches++;
    this.#pool.counts.scanned++;
    const n = reply.lengths.length;
    batch.offsets = reply.offsets;
    batch.lengths = reply.lengths;
    batch.decisions = new Array<undefined>(n).fill(undefined);
    batch.undecided = n;
    batch.holders = n;
    if (n === 0) {
      // Nothing of its own (its bytes went on as the next slot's carry): the worker keeps nothing of it.
      batch.settled = true;
      this.#maybeReturnSlot(batch);
    } else {
      const group: ScannedChunk[] = [];
      for (let i = 0; i < n; i++) {
        const from = reply.offsets[i]!;
        group.push({ chunk: batch.slot.input.subarray(from, from + reply.lengths[i]!), handle: this.#handle(batch, i, Promise.resolve(reply.digests[i]!)) });
      }
      // A caller that stopped takes no more chunks: their slot goes back once the worker is done with it.
      if (scan.stopped) for (const c of group) c.handle.release();
      else scan.ready.push(group);
    }
    scan.waiter?.resolve();
  }

  /** Sends the open batch, if any (before the caller waits on one of its chunks). */
  send(): void {
    const batch = this.#open;
    if (!batch || this.#failed) return;
    this.#open = undefined;
    batch.sent = true;
    const slot = batch.slot.index >= 0 ? batch.slot.index : batch.slot.buffers;
    this.#pool.post(this.#worker, { op: 'digest', stream: this.id, batch: batch.id, slot, lengths: batch.lengths });
    if (batch.undecided === 0) this.#encode(batch);
  }

  /** SHA-256 (hex) of every byte added, in order. Ends the stream. */
  digest(): Promise<string> {
    if (this.#failed) return Promise.reject(this.#failed);
    if (!this.#object) {
      this.send();
      this.#object = deferred<string>();
      this.#pool.post(this.#worker, { op: 'object', stream: this.id });
    }
    return this.#object.promise;
  }

  /** Gives up the stream (an ingest that failed): waiting calls are rejected, the worker forgets it. */
  abort(err: Error = new Error('ingest aborted')): void {
    this.fail(err, true);
  }

  /**
   * @internal `drop`: ask the worker to forget the stream and return its slots when it answers; false when the
   * pool is broken (its slots are given up with it).
   */
  fail(err: Error, drop: boolean): void {
    if (this.#failed) return;
    this.#failed = err;
    this.#open = undefined;
    for (const batch of this.#batches.values()) {
      for (const d of batch.digests) d.reject(err);
      for (const d of batch.decisions) d?.reject(err);
      if (batch.sent && !batch.settled) this.#awaitingDrop.push(batch);
      else this.#maybeReturnSlot(batch);
    }
    this.#object?.reject(err);
    this.#scan?.waiter?.resolve();
    let dropped = false;
    if (drop) {
      try {
        this.#pool.post(this.#worker, { op: 'drop', stream: this.id });
        dropped = true;
      } catch {
        // The pool broke meanwhile: nothing to drop, and its slots are gone with it.
      }
    }
    if (!dropped) this.#pool.closed(this);
  }

  /** @internal a worker's answer for this stream */
  settle(reply: OffloadReply): void {
    switch (reply.op) {
      case 'object':
        this.#object?.resolve(reply.digest);
        this.#pool.closed(this);
        return;
      case 'dropped':
        for (const batch of this.#awaitingDrop) {
          batch.settled = true;
          this.#maybeReturnSlot(batch);
        }
        this.#awaitingDrop = [];
        this.#pool.closed(this);
        return;
      case 'error':
        this.fail(new Error(`ingest worker: ${reply.error}`), true);
        return;
    }
    const batch = this.#batches.get(reply.batch);
    if (!batch || this.#failed) return;
    if (reply.op === 'chunks') {
      this.#scanned(batch, reply);
      return;
    }
    if (reply.op === 'digests') {
      this.#pool.counts.batches++;
      reply.digests.forEach((d, i) => batch.digests[i]!.resolve(d));
      return;
    }
    this.#pool.counts.frames += reply.lengths.length;
    // encoded: the frames lie end to end in the slot's output half, in the order of the chunks that asked.
    batch.settled = true;
    let at = 0;
    let k = 0;
    for (let i = 0; i < batch.decisions.length; i++) {
      const d = batch.decisions[i];
      if (!d) continue;
      const length = reply.lengths[k++]!;
      if (length >= 0) {
        d.resolve(batch.slot.output.subarray(at, at + length));
        at += length;
      } else d.resolve(compressZstdInline(this.#rawOf(batch, i), batch.level!)); // did not fit the slot
    }
    this.#maybeReturnSlot(batch);
  }

  #rawOf(batch: Batch, index: number): Uint8Array {
    const from = batch.offsets[index]!;
    return batch.slot.input.subarray(from, from + batch.lengths[index]!);
  }

  #compress(batch: Batch, index: number, raw: Uint8Array, level: number): Promise<Uint8Array> {
    // A chunk whose lookup finished after the stream failed: no encode step will come for it.
    if (this.#failed) return Promise.reject(this.#failed);
    // One level per batch (ingest uses one level per object); a chunk that cannot join its batch's encode
    // step (decided already, or another level) is coded here instead, with the same bytes.
    if (batch.decisions[index] !== undefined || (batch.level !== undefined && batch.level !== level)) return Promise.resolve(compressZstdInline(raw, level));
    batch.level = level;
    const waiter = deferred<Uint8Array>();
    this.#decide(batch, index, waiter);
    return waiter.promise;
  }

  #decide(batch: Batch, index: number, decision: Deferred<Uint8Array> | null): void {
    if (batch.decisions[index] !== undefined) return;
    batch.decisions[index] = decision;
    batch.undecided--;
    if (batch.undecided === 0 && batch.sent && !this.#failed) this.#encode(batch);
  }

  #encode(batch: Batch): void {
    const indexes: number[] = [];
    batch.decisions.forEach((d, i) => d && indexes.push(i));
    this.#pool.post(this.#worker, { op: 'encode', stream: this.id, batch: batch.id, indexes, level: batch.level ?? 0 });
  }

  /** A slot goes back once the worker is done with it and every chunk of its batch has been released. */
  #maybeReturnSlot(batch: Batch): void {
    if (batch.slotReturned || batch.holders > 0) return;
    if (batch.sent && !batch.settled) return;
    batch.slotReturned = true;
    this.#batches.delete(batch.id);
    this.#pool.releaseSlot(batch.slot);
  }
}
