/**
 * The exclusive lock on a service's state: its audit log and its artifact
 * directory. Taken before anything is opened or written, so a second
 * `attr-service` started on the same state refuses to start and changes
 * nothing (issue 18, item 10; docs/decisions/131-state-lock.md).
 *
 * Node has no flock, so the lock is a file created with O_EXCL holding the
 * owner's pid: `<audit_log_path>.lock` and `<artifact_dir>.lock`. A lock whose
 * pid is no longer alive (a crashed or killed service) is stale: it is
 * removed and taken over. Both files are removed on a clean stop.
 */
import { mkdirSync, openSync, readFileSync, rmSync, writeSync, closeSync } from 'node:fs';
import path from 'node:path';

/** Thrown when another live process holds the state; the message names it. */
export class StateLockedError extends Error {
  readonly lockFile: string;
  readonly ownerPid: number | undefined;
  constructor(lockFile: string, ownerPid: number | undefined) {
    super(
      `state is locked by another attr-service (pid ${ownerPid ?? 'unknown'}, lock file ${lockFile}); ` +
        'stop it first, or point this instance at its own audit_log_path and artifact_dir',
    );
    this.name = 'StateLockedError';
    this.lockFile = lockFile;
    this.ownerPid = ownerPid;
  }
}

interface LockBody {
  pid: number;
  config_path: string;
  locked_at: string;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists but belongs to someone else; still a live owner.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function readOwner(lockFile: string): number | undefined {
  try {
    const body = JSON.parse(readFileSync(lockFile, 'utf8')) as Partial<LockBody>;
    return Number.isInteger(body.pid) ? body.pid : undefined;
  } catch {
    return undefined;
  }
}

/** Creates `lockFile` exclusively; takes over a stale lock once. Throws StateLockedError when held. */
function acquireOne(lockFile: string, body: LockBody): void {
  mkdirSync(path.dirname(lockFile), { recursive: true });
  for (let attempt = 0; attempt < 2; attempt++) {
    let fd: number;
    try {
      fd = openSync(lockFile, 'wx', 0o600);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const owner = readOwner(lockFile);
      // An unreadable body may be a lock being written right now: treat it as held.
      if (owner === undefined || owner === process.pid || alive(owner) || attempt > 0) throw new StateLockedError(lockFile, owner);
      rmSync(lockFile, { force: true });
      continue;
    }
    try {
      writeSync(fd, `${JSON.stringify(body)}\n`);
    } finally {
      closeSync(fd);
    }
    return;
  }
  throw new StateLockedError(lockFile, readOwner(lockFile));
}

/** The live pid holding `lockFile`, or undefined when the lock is absent or stale. */
export function lockOwner(lockFile: string): number | undefined {
  const owner = readOwner(lockFile);
  return owner !== undefined && alive(owner) ? owner : undefined;
}

export interface StateLock {
  readonly files: readonly string[];
  release(): void;
}

/** Locks the audit log and the artifact directory of one config, or throws without having changed either. */
export function acquireStateLock(state: { auditLogPath: string; artifactDir: string; configPath: string }): StateLock {
  const body: LockBody = { pid: process.pid, config_path: state.configPath, locked_at: new Date().toISOString() };
  const files = [`${state.auditLogPath}.lock`, `${path.resolve(state.artifactDir)}.lock`];
  const held: string[] = [];
  try {
    for (const file of files) {
      acquireOne(file, body);
      held.push(file);
    }
  } catch (err) {
    for (const file of held) rmSync(file, { force: true });
    throw err;
  }
  let released = false;
  return {
    files,
    release() {
      if (released) return;
      released = true;
      // Only remove a lock that is still ours (never one a successor took over).
      for (const file of held) if (readOwner(file) === process.pid) rmSync(file, { force: true });
    },
  };
}
