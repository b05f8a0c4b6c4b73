/**
 * A real `svc serve` child process (bin/svc.mjs, as users run it) on a fixed
 * free port, for tests that kill and restart the server: crash suites and
 * several processes on one database. `kill('SIGKILL')` is a real crash: no
 * shutdown hook runs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SVC_BIN = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../bin/svc.mjs');

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

export interface SvcProcess {
  readonly url: string;
  /** Output so far (stdout and stderr of every incarnation), for failure messages. */
  output(): string;
  start(): Promise<void>;
  /** Sends the signal and waits for the process to exit. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  readonly running: boolean;
}

export async function svcProcess(env: Record<string, string>): Promise<SvcProcess> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let child: ChildProcess | undefined;
  let out = '';
  const proc: SvcProcess = {
    url,
    output: () => out,
    get running() {
      return child !== undefined && child.exitCode === null && child.signalCode === null;
    },
    async start() {
      child = spawn(process.execPath, [SVC_BIN, 'serve', '--port', String(port)], {
        env: { ...process.env, SVC_GRPC_ENABLED: 'false', SVC_SCHEDULER_TICK_MS: '0', ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child.stdout!.on('data', (d) => (out += d));
      child.stderr!.on('data', (d) => (out += d));
      const deadline = Date.now() + 120_000; // generous: start-up after a kill -9 on a loaded CI machine
      for (;;) {
        if (!proc.running) throw new Error(`svc exited during start-up:\n${out.slice(-2000)}`);
        try {
          if ((await fetch(`${url}/readyz`)).status === 200) return;
        } catch {
          // not listening yet
        }
        if (Date.now() > deadline) throw new Error(`svc not ready within 120 s:\n${out.slice(-2000)}`);
        await new Promise((r) => setTimeout(r, 50));
      }
    },
    async kill(signal = 'SIGKILL') {
      if (!child || !proc.running) return;
      const exited = new Promise((r) => child!.once('exit', r));
      child.kill(signal);
      await exited;
    },
  };
  return proc;
}
