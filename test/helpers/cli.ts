/**
 * Runs the real `svc` binary asynchronously. (spawnSync would block this
 * process's event loop, and with it an in-process test server: a deadlock.)
 */
import { spawn } from 'node:child_process';
import path from 'node:path';

export const SVC_BIN = path.resolve(import.meta.dirname, '../../bin/svc.mjs');

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

export function runSvc(args: string[], env: Record<string, string | undefined> = {}, input?: string | Uint8Array): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [SVC_BIN, ...args], { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d) => (stdout += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, stdout, stderr }));
    // A CLI may exit before it read all of its input (a refusal while uploading standard input): not a test error.
    child.stdin.on('error', (err: NodeJS.ErrnoException) => err.code === 'EPIPE' || reject(err));
    child.stdin.end(input ?? '');
  });
}
