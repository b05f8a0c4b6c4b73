/**
 * Starts the benchmark's helper processes (mock upstream, load generator)
 * with an IPC channel, so the process under test runs nothing else. They
 * are started without the parent's exec flags: a `--cpu-prof` run profiles
 * svc only.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import type { LoadJob, LoadResult } from '../../src/svc/benchmarks/http-load.ts';

function start(entry: string, env: Record<string, string> = {}): ChildProcess {
  return fork(fileURLToPath(new URL(entry, import.meta.url)), [], { execArgv: [], env: { ...process.env, ...env }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

function firstMessage<T>(child: ChildProcess): Promise<T> {
  return new Promise((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`benchmark child exited early (code ${code})`));
    child.once('exit', onExit);
    child.once('message', (m) => {
      child.off('exit', onExit);
      resolve(m as T);
    });
  });
}

export interface ChildMock {
  url: string;
  stop(): void;
}

export async function startMockProcess(latencyMs = 0): Promise<ChildMock> {
  const child = start('./mock-upstream-process.ts', { MOCK_LATENCY_MS: String(latencyMs) });
  const { url } = await firstMessage<{ url: string }>(child);
  return { url, stop: () => child.disconnect() };
}

export interface LoadGenerator {
  run(job: LoadJob): Promise<LoadResult>;
  stop(): void;
}

export function startLoadProcess(): LoadGenerator {
  const child = start('./load-process.ts');
  let queue: Promise<unknown> = Promise.resolve();
  return {
    run(job) {
      const next = queue.then(async () => {
        const reply = firstMessage<LoadResult>(child);
        child.send(job);
        const r = await reply;
        if (!r.ok) throw new Error(`load generator failed: ${r.error}`);
        return r;
      });
      queue = next.catch(() => undefined);
      return next;
    },
    stop: () => child.disconnect(),
  };
}
