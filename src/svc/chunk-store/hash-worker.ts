/**
 * Worker side of the hash pool (hash-pool.ts): SHA-256 of byte ranges of
 * SharedArrayBuffers, either one-off (a chunk id) or accumulated per stream
 * (a whole object, updated in order). Messages from one port arrive in order,
 * which is what keeps a stream's updates ordered.
 */
import { createHash, type Hash } from 'node:crypto';
import { parentPort } from 'node:worker_threads';

export type HashRequest =
  | { op: 'chunk'; id: number; sab: SharedArrayBuffer; offset: number; length: number }
  | { op: 'update'; stream: number; sab: SharedArrayBuffer; offset: number; length: number }
  | { op: 'digest'; id: number; stream: number };

export type HashReply = { id: number; digest: string } | { id: number; error: string };

const streams = new Map<number, Hash>();
const port = parentPort;
if (!port) throw new Error('hash-worker.ts must run as a worker thread');

port.on('message', (m: HashRequest) => {
  try {
    if (m.op === 'chunk') {
      port.postMessage({ id: m.id, digest: createHash('sha256').update(new Uint8Array(m.sab, m.offset, m.length)).digest('hex') } satisfies HashReply);
    } else if (m.op === 'update') {
      let hash = streams.get(m.stream);
      if (!hash) streams.set(m.stream, (hash = createHash('sha256')));
      hash.update(new Uint8Array(m.sab, m.offset, m.length));
    } else {
      const hash = streams.get(m.stream) ?? createHash('sha256');
      streams.delete(m.stream);
      port.postMessage({ id: m.id, digest: hash.digest('hex') } satisfies HashReply);
    }
  } catch (err) {
    if (m.op !== 'update') port.postMessage({ id: m.id, error: String(err) } satisfies HashReply);
  }
});
