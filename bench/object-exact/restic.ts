/**
 * A thin driver for the restic CLI, the baseline object-exact-v1 compares
 * against. restic is installed from Debian (`apt-get install -y restic`) when
 * missing; the repository is local, version 2 (zstd compression, restic's
 * default `auto` level), with the cache disabled so that both sides work from
 * the same files only.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { dirSize } from './dir-size.ts';

const ENV = { ...process.env, RESTIC_PASSWORD: 'object-exact-v1', GOGC: process.env['GOGC'] ?? '100' };

export function resticVersion(): string | undefined {
  const r = spawnSync('restic', ['version'], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : undefined;
}

/** Installs restic from the Debian archive if it is not on PATH. */
export function ensureRestic(): string {
  const existing = resticVersion();
  if (existing) return existing;
  const install = () => spawnSync('apt-get', ['install', '-y', 'restic'], { stdio: 'inherit' }).status === 0;
  if (!install()) {
    spawnSync('apt-get', ['update'], { stdio: 'inherit' });
    if (!install()) throw new Error('could not install restic with apt-get');
  }
  const installed = resticVersion();
  if (!installed) throw new Error('restic is still not runnable after installation');
  return installed;
}

function restic(repo: string, args: string[]): string {
  return execFileSync('restic', ['--repo', repo, '--no-cache', '--quiet', ...args], { env: ENV, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
}

export function resticInit(repo: string): void {
  restic(repo, ['init', '--repository-version', '2']);
}

/** Backs up `paths` (run from `cwd`); returns the wall time in ms and the repository growth in bytes. */
export function resticBackup(repo: string, cwd: string, paths: string[]): { ms: number; addedBytes: number } {
  const before = dirSize(repo);
  const started = performance.now();
  execFileSync('restic', ['--repo', repo, '--no-cache', '--quiet', 'backup', ...paths], { cwd, env: ENV, stdio: 'ignore' });
  const ms = performance.now() - started;
  return { ms, addedBytes: dirSize(repo) - before };
}

/** Restores the latest snapshot into `target`; returns the wall time in ms. */
export function resticRestore(repo: string, target: string): number {
  const started = performance.now();
  restic(repo, ['restore', 'latest', '--target', target]);
  return performance.now() - started;
}

/** The environment restic runs with here (repository password). */
export function resticEnv(): NodeJS.ProcessEnv {
  return ENV;
}

/**
 * Garbage collection as a restic user does it: a first snapshot of `all`, a
 * second of `kept` only, then `forget` of the first and `prune`. Returns the
 * wall time of forget + prune and the repository bytes they freed.
 */
export function resticGc(repo: string, cwd: string, all: string[], kept: string[]): { ms: number; freedBytes: number } {
  resticInit(repo);
  resticBackup(repo, cwd, all);
  const first = JSON.parse(restic(repo, ['snapshots', '--json'])) as Array<{ id: string }>;
  resticBackup(repo, cwd, kept);
  const before = dirSize(repo);
  const started = performance.now();
  restic(repo, ['forget', first[0]!.id]);
  restic(repo, ['prune']);
  return { ms: performance.now() - started, freedBytes: before - dirSize(repo) };
}
