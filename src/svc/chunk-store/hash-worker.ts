/**
 * Worker side of the hash pool (hash-pool.ts): SHA-256 of transferred
 * buffers, either one-off (a chunk id) or accumulated per stream (a whole
 * object, updated in order). Every buffer is transferred back as soon as it
 * is hashed, so the worker never owns memory between messages. Messages from
 * one port arrive in order, which is what keeps a stream's updates ordered.
 */
import { createHash, type Hash } from 'node:crypto';
import { parentPort } from 'node:worker_threads';

export type HashRequest =
  | { op: 'chunk'; id: number; buffer: ArrayBuffer; length: number }
  | { op: 'update'; stream: number; buffer: ArrayBuffer; length: number }
  | { op: 'digest'; id: number; stream: number };

/** `buffer` is the request's buffer coming home; an update's reply carries nothing else. */
export type HashReply =
  | { id: number; digest: string; buffer?: ArrayBuffer }
  | { id: number; error: string; buffer?: ArrayBuffer }
  | { buffer: ArrayBuffer };

const streams = new Map<number, Hash>();
const port = parentPort;
if (!port) throw new Error('hash-worker.ts must run as a worker thread');

port.on('message', (m: HashRequest) => {
  const buffer = m.op === 'digest' ? undefined : m.buffer;
  const home = buffer ? [buffer] : [];
  try {
    if (m.op === 'chunk') {
      const digest = createHash('sha256').update(new Uint8Array(m.buffer, 0, m.length)).digest('hex');
      port.postMessage({ id: m.id, digest, buffer: m.buffer } satisfies HashReply, home);
    } else if (m.op === 'update') {
      let hash = streams.get(m.stream);
      if (!hash) streams.set(m.stream, (hash = createHash('sha256')));
      hash.update(new Uint8Array(m.buffer, 0, m.length));
      port.postMessage({ buffer: m.buffer } satisfies HashReply, home);
    } else {
      const hash = streams.get(m.stream) ?? createHash('sha256');
      streams.delete(m.stream);
      port.postMessage({ id: m.id, digest: hash.digest('hex') } satisfies HashReply);
    }
  } catch (err) {
    if (m.op !== 'update') port.postMessage({ id: m.id, error: String(err), ...(buffer ? { buffer } : {}) } satisfies HashReply, home);
  }
});
