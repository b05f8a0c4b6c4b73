/**
 * Worker side of the frame pool (frame-pool.ts): encodes and decodes frames
 * off the main thread. The request's buffer is transferred here and the
 * answer's buffer transferred back, so one isolate owns each at a time.
 */
import { parentPort } from 'node:worker_threads';
import { decodeFrameInto, decodeFrameSync, encodeFrameSync, type FrameCodec } from './frame-codec.ts';
import { ZstdFrameDecoder } from './zstd-native.ts';

export type FrameRequest =
  | { id: number; op: 'encode'; codec: FrameCodec; level: number; data: Uint8Array }
  | { id: number; op: 'decode'; data: Uint8Array }
  /** Decode into `out`, which comes back (transferred) as the answer's buffer. */
  | { id: number; op: 'decodeInto'; data: Uint8Array; out: ArrayBuffer };
export type FrameReply = { id: number; data: Uint8Array } | { id: number; error: string };

const port = parentPort;
if (!port) throw new Error('frame-worker.ts must run as a worker thread');

const decoder = new ZstdFrameDecoder();

port.on('message', (m: FrameRequest) => {
  try {
    if (m.op === 'decodeInto') {
      const written = decodeFrameInto(m.data, new Uint8Array(m.out), decoder);
      port.postMessage({ id: m.id, data: new Uint8Array(m.out, 0, written) } satisfies FrameReply, [m.out]);
      return;
    }
    const out = m.op === 'encode' ? encodeFrameSync(m.data, m.codec, m.level) : decodeFrameSync(m.data);
    // A copy that owns its whole ArrayBuffer (zlib results may be views into larger ones).
    const owned = new Uint8Array(out.byteLength);
    owned.set(out);
    port.postMessage({ id: m.id, data: owned } satisfies FrameReply, [owned.buffer]);
  } catch (err) {
    port.postMessage({ id: m.id, error: err instanceof Error ? err.message : String(err) } satisfies FrameReply);
  }
});
