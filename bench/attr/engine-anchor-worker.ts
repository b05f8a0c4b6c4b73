/**
 * The engine-only anchor of bench attr, in a worker thread of its own: the
 * same isolate setup as the service's engine workers (a heap holding one
 * engine and nothing else), so the anchor is not slowed by the load
 * generator's garbage in the bench's main heap. Builds the engine once, warms
 * it up, then answers `{ calls }` with wall-clock samples of the calls and
 * this thread's CPU time since its previous answer.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createAttributionEngine, parseCorpus } from '../../src/attr/engine/index.ts';

export interface AnchorData {
  corpusText: string;
  prompt: string;
  output: string;
  grossRevenue: string;
  warmup: number;
}

export interface AnchorReply {
  samplesMs: number[];
  cpuMs: number;
}

const data = workerData as AnchorData;
const engine = createAttributionEngine(parseCorpus(data.corpusText));
const call = (i: number) =>
  engine.attribute({
    prompt: data.prompt,
    output: data.output,
    grossRevenue: data.grossRevenue,
    context: { eventId: `evt_bench_${i}`, requestId: `req_bench_${i}`, operator: 'bench', createdAt: '2025-01-01T00:00:00Z' },
  });
for (let i = 0; i < data.warmup; i++) call(i);
// CPU is counted from one reply to the next, not just inside the calls: garbage collection V8 runs on this thread
// between messages is the engine's cost too (and it is counted in the service's worker threads).
let cpuMark = process.threadCpuUsage();
parentPort!.postMessage('ready');
parentPort!.on('message', ({ calls }: { calls: number }) => {
  const samplesMs: number[] = [];
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    call(i);
    samplesMs.push(performance.now() - t0);
  }
  const c = process.threadCpuUsage(cpuMark);
  cpuMark = process.threadCpuUsage();
  parentPort!.postMessage({ samplesMs, cpuMs: (c.user + c.system) / 1000 } satisfies AnchorReply);
});
