/**
 * The engine alone under the service's concurrency, for bench attr: a child
 * process holding `threads` engine-anchor workers (engine-anchor-worker.ts,
 * one engine each, warmed like the service's workers) and nothing else, so
 * that its CPU time read from /proc by kind of thread — the engine threads,
 * and V8's GC helpers working for them — is counted exactly as the service's
 * is, without the bench's load generator in the same heap. Reads
 * `{ calls }` on IPC, runs that many calls on every worker at once (each
 * worker back to back, as the service's workers are under load) and answers
 * `{ calls }` when all are done. Stdin/stdout are not used.
 */
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import type { AnchorData } from './engine-anchor-worker.ts';

const [dataPath, threadsArg] = process.argv.slice(2);
const data = JSON.parse(readFileSync(dataPath!, 'utf8')) as AnchorData;
const workers = Array.from({ length: Number(threadsArg) }, () => new Worker(new URL('./engine-anchor-worker.ts', import.meta.url), { workerData: data }));
await Promise.all(workers.map((w) => once(w, 'message')));
process.send!({ ready: true });
process.on('message', (m: { calls: number } | { exit: true }) => {
  if ('exit' in m) {
    void Promise.all(workers.map((w) => w.terminate())).then(() => process.exit(0));
    return;
  }
  void Promise.all(
    workers.map(async (w) => {
      for (let i = 0; i < m.calls; i++) {
        const reply = once(w, 'message');
        w.postMessage({ calls: 1 });
        await reply;
      }
    }),
  ).then(() => process.send!({ calls: m.calls * workers.length }));
});
