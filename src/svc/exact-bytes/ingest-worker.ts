/**
 * Worker side of the ingest offload (ingest-offload.ts, decision 189): the
 * SHA-256 work and the zstd compression of a large object's ingest, on a
 * thread of its own.
 *
 * The bytes live in slots the pool shares with every worker once, at start
 * (`slots`): a batch names its slot by number, so no message carries or
 * allocates a buffer. Per ingest stream, batches of consecutive chunks arrive
 * in object order:
 *
 * 1. `digest`: the batch's bytes are added to the stream's whole-object hash
 *    (messages from one port arrive in order, which keeps that hash in order)
 *    and each chunk is hashed for its id.
 * 2. `encode`: once the main thread has looked every chunk up in the dedupe
 *    index, it names the new compressible ones; they are coded as zstd frames
 *    (the main thread's encoder settings, so the same bytes) one after the
 *    other into the slot's output half. A frame that does not fit is
 *    reported as -1 and coded by the main thread instead.
 * 3. `object`: the whole-object digest, which ends the stream.
 *
 * A stream may instead send raw bytes to be cut here (`scan`, decision 203):
 * each slot holds the next stretch of the object after a head left free for
 * the chunk carried over from the slot before. The worker copies that carry
 * into the head, cuts with FastCDC (the same cut points the main thread's
 * chunker finds, since a cut depends only on the bytes from the chunk's start
 * to at most `maxSize` past it), hashes each chunk, answers `chunks`, and
 * keeps the unfinished tail for the next slot. Step 2 is then the same.
 *
 * `drop` forgets a stream whose ingest failed and answers `dropped`: every
 * earlier message of the stream has been handled by then, so its slots may
 * be reused.
 */
import { createHash, type Hash } from 'node:crypto';
import { parentPort } from 'node:worker_threads';
import type { ChunkingParams } from '../chunking/chunking-params.ts';
import { createCutPointFinder, type CutPointFinder } from '../chunking/fastcdc.ts';
import { ZstdFrameEncoder } from '../chunking/zstd-native.ts';

/** A slot's two halves: the batch's raw bytes, and the frames coded from them. */
export interface SlotBuffers {
  input: SharedArrayBuffer;
  output: SharedArrayBuffer;
}

export type OffloadRequest =
  | { op: 'slots'; slots: SlotBuffers[] }
  /** `slot` is an index into the shared slots, or, for a chunk larger than a slot, buffers of its own. */
  | { op: 'digest'; stream: number; batch: number; slot: number | SlotBuffers; lengths: number[] }
  /**
   * Raw bytes of the object in `slot[begin, end)` (a shared slot), after the previous slot's; `last`: the object
   * ends there. The chunk carried over from the previous slot is placed just before `begin`.
   */
  | { op: 'scan'; stream: number; batch: number; slot: number; begin: number; end: number; last: boolean; params: ChunkingParams }
  | { op: 'encode'; stream: number; batch: number; indexes: number[]; level: number }
  | { op: 'object'; stream: number }
  | { op: 'drop'; stream: number };

export type OffloadReply =
  | { op: 'digests'; stream: number; batch: number; digests: string[] }
  /** The chunks a `scan` cut, wholly inside its slot: where each starts in the slot, its length and its digest. */
  | { op: 'chunks'; stream: number; batch: number; offsets: number[]; lengths: number[]; digests: string[] }
  /** Frame lengths in the order of the request's indexes (-1: did not fit), laid end to end in the output half. */
  | { op: 'encoded'; stream: number; batch: number; lengths: number[] }
  | { op: 'object'; stream: number; digest: string }
  | { op: 'dropped'; stream: number }
  | { op: 'error'; stream: number; error: string };

interface HeldBatch {
  input: Uint8Array;
  output: Uint8Array;
  offsets: number[];
  lengths: number[];
}

interface StreamState {
  hash: Hash;
  batches: Map<number, HeldBatch>;
  /** Scanning streams: the chunker, and the bytes after the last cut of the previous slot. */
  finder?: CutPointFinder;
  carry?: Uint8Array;
  carryLength: number;
}

const port = parentPort;
if (!port) throw new Error('ingest-worker.ts must run as a worker thread');

let slots: Array<{ input: Uint8Array; output: Uint8Array }> = [];
const streams = new Map<number, StreamState>();
const encoders = new Map<number, ZstdFrameEncoder>();

function encoderFor(level: number): ZstdFrameEncoder {
  let encoder = encoders.get(level);
  if (!encoder) encoders.set(level, (encoder = new ZstdFrameEncoder(level)));
  return encoder;
}

function streamOf(id: number): StreamState {
  let state = streams.get(id);
  if (!state) streams.set(id, (state = { hash: createHash('sha256'), batches: new Map(), carryLength: 0 }));
  return state;
}

function views(slot: number | SlotBuffers): { input: Uint8Array; output: Uint8Array } {
  if (typeof slot !== 'number') return { input: new Uint8Array(slot.input), output: new Uint8Array(slot.output) };
  const held = slots[slot];
  if (!held) throw new Error(`no slot ${slot}`);
  return held;
}

function digest(m: Extract<OffloadRequest, { op: 'digest' }>): void {
  const state = streamOf(m.stream);
  const { input, output } = views(m.slot);
  const offsets: number[] = [];
  const digests: string[] = [];
  let at = 0;
  for (const length of m.lengths) {
    const view = input.subarray(at, at + length);
    state.hash.update(view);
    digests.push(createHash('sha256').update(view).digest('hex'));
    offsets.push(at);
    at += length;
  }
  state.batches.set(m.batch, { input, output, offsets, lengths: m.lengths });
  port!.postMessage({ op: 'digests', stream: m.stream, batch: m.batch, digests } satisfies OffloadReply);
}

function scan(m: Extract<OffloadRequest, { op: 'scan' }>): void {
  const state = streamOf(m.stream);
  const finder = (state.finder ??= createCutPointFinder(m.params));
  const { maxSize } = finder.params;
  const { input, output } = views(m.slot);
  let at = m.begin - state.carryLength;
  if (at < 0) throw new Error(`a carried chunk of ${state.carryLength} bytes does not fit a slot head of ${m.begin}`);
  if (state.carryLength > 0) input.set(state.carry!.subarray(0, state.carryLength), at);
  const offsets: number[] = [];
  const lengths: number[] = [];
  const digests: string[] = [];
  // Unless the object ends here, a cut needs maxSize bytes ahead of it (fastcdc.ts), as on the main thread.
  while (at < m.end && (m.last || m.end - at >= maxSize)) {
    const length = finder.nextChunkLength(input, at, m.end);
    const view = input.subarray(at, at + length);
    state.hash.update(view);
    digests.push(createHash('sha256').update(view).digest('hex'));
    offsets.push(at);
    lengths.push(length);
    at += length;
  }
  state.carryLength = m.end - at;
  if (state.carryLength > 0) (state.carry ??= new Uint8Array(maxSize)).set(input.subarray(at, m.end));
  // A slot that ended with no chunk of its own gets no encode step.
  if (lengths.length > 0) state.batches.set(m.batch, { input, output, offsets, lengths });
  port!.postMessage({ op: 'chunks', stream: m.stream, batch: m.batch, offsets, lengths, digests } satisfies OffloadReply);
}

function encode(m: Extract<OffloadRequest, { op: 'encode' }>): void {
  const state = streams.get(m.stream);
  const held = state?.batches.get(m.batch);
  if (!held) throw new Error(`batch ${m.batch} of stream ${m.stream} is not held`);
  state!.batches.delete(m.batch);
  const encoder = encoderFor(m.level);
  const lengths: number[] = [];
  let at = 0;
  for (const i of m.indexes) {
    const from = held.offsets[i]!;
    const written = encoder.encodeInto(held.input.subarray(from, from + held.lengths[i]!), held.output.subarray(at));
    lengths.push(written);
    if (written > 0) at += written;
  }
  port!.postMessage({ op: 'encoded', stream: m.stream, batch: m.batch, lengths } satisfies OffloadReply);
}

port.on('message', (m: OffloadRequest) => {
  try {
    if (m.op === 'slots') slots = m.slots.map((s) => ({ input: new Uint8Array(s.input), output: new Uint8Array(s.output) }));
    else if (m.op === 'digest') digest(m);
    else if (m.op === 'scan') scan(m);
    else if (m.op === 'encode') encode(m);
    else if (m.op === 'object') {
      const state = streams.get(m.stream);
      streams.delete(m.stream);
      port.postMessage({ op: 'object', stream: m.stream, digest: (state?.hash ?? createHash('sha256')).digest('hex') } satisfies OffloadReply);
    } else {
      streams.delete(m.stream);
      port.postMessage({ op: 'dropped', stream: m.stream } satisfies OffloadReply);
    }
  } catch (err) {
    if (m.op !== 'slots') port.postMessage({ op: 'error', stream: m.stream, error: String(err) } satisfies OffloadReply);
  }
});
