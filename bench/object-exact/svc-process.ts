/**
 * `svc serve` in its own process as `npm start` runs it (same node flags,
 * SQLite and the filesystem pack store by default, default config), and the
 * real CLI (bin/svc.mjs) as child processes: the user path object-exact-v1
 * measures. Optionally under `strace -c` to count the server's fsyncs.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const SVC_BIN = path.join(ROOT, 'bin/svc.mjs');
export const API_KEY = 'bench-object-exact-key-0123456789abcdef';

/** The node flags of `npm start` (package.json "start"). */
export function npmStartNodeFlags(): string[] {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
  const start = pkg.scripts['start'] ?? '';
  const words = start.split(/\s+/);
  const bin = words.indexOf('bin/svc.mjs');
  if (words[0] !== 'node' || bin < 0) throw new Error(`unexpected npm start script: ${start}`);
  return words.slice(1, bin);
}

function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

export interface SvcServer {
  url: string;
  env: Record<string, string>;
  pid: number;
  stop(): Promise<void>;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Extra node flags (e.g. --cpu-prof). */
  nodeFlags?: string[];
  /** Run under `strace -f -c` writing its summary to this file (written when the server exits). */
  straceSummary?: string;
}

/** Starts `svc serve` on a free port over `stateDir` and waits for /healthz. */
export async function startSvc(stateDir: string, options: StartOptions = {}): Promise<SvcServer> {
  const port = await freePort();
  const env = { SVC_STATE_DIR: stateDir, SVC_PORT: String(port), SVC_GRPC_ENABLED: 'false', SVC_LOCAL_API_KEY: API_KEY, SVC_LOG_LEVEL: 'warn', ...options.env };
  const nodeArgs = [...npmStartNodeFlags(), ...(options.nodeFlags ?? []), SVC_BIN, 'serve'];
  const child = options.straceSummary
    ? spawn('strace', ['-f', '-c', '-e', 'trace=fsync,fdatasync,sync_file_range,syncfs', '-o', options.straceSummary, process.execPath, ...nodeArgs], { env: { ...process.env, ...env }, stdio: 'ignore' })
    : spawn(process.execPath, nodeArgs, { env: { ...process.env, ...env }, stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.on('close', () => resolve()));
  const url = `http://127.0.0.1:${port}`;
  let up = false;
  for (let i = 0; i < 600 && !up; i++) {
    try {
      up = (await fetch(`${url}/healthz`)).ok;
    } catch {
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  if (!up) {
    child.kill('SIGKILL');
    throw new Error('svc serve did not become healthy within 60 s');
  }
  return {
    url,
    env,
    pid: child.pid!,
    stop: async () => {
      // Under strace, the server is strace's child: signal it (strace exits with it and writes its summary).
      const traced = options.straceSummary ? Number(readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(/\s+/)[0]) : 0;
      if (traced > 0) process.kill(traced, 'SIGTERM');
      else child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Runs the CLI (`node bin/svc.mjs …`, as a user does) to its end: wall time and stdout. */
export function runCli(args: string[], server: SvcServer, nodeFlags: string[] = []): Promise<{ ms: number; stdout: string }> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [...nodeFlags, SVC_BIN, ...args], { env: { ...process.env, SVC_URL: server.url, SVC_API_KEY: API_KEY }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve({ ms: performance.now() - started, stdout }) : reject(new Error(`svc ${args.slice(0, 2).join(' ')} exited ${code}: ${stderr.slice(0, 500)}`))));
  });
}

/** fsync-family calls in an `strace -c` summary. */
export function straceSyncCalls(summaryFile: string): number {
  let calls = 0;
  for (const line of readFileSync(summaryFile, 'utf8').split('\n')) {
    const cols = line.trim().split(/\s+/);
    const name = cols.at(-1);
    if (name && /^(fsync|fdatasync|sync_file_range|syncfs)$/.test(name)) calls += Number(cols[3]);
  }
  return calls;
}
