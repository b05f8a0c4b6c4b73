/**
 * Start-up checks of the paths a config names that a schema cannot make:
 * the audit log must be a file (or absent) and the artifact directory a
 * directory (or absent). A wrong kind is a config error (exit 2 with a clear
 * message), not a stack trace (issue 18, item 13).
 */
import { stat } from 'node:fs/promises';
import type { ServiceConfig } from './service-config.ts';
import { ConfigError } from './service-config.ts';

async function kindOf(p: string): Promise<'file' | 'directory' | 'other' | 'missing'> {
  try {
    const s = await stat(p);
    return s.isFile() ? 'file' : s.isDirectory() ? 'directory' : 'other';
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw new ConfigError(`cannot inspect ${p}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}

/** Throws ConfigError naming the key and the path when a state path has the wrong kind. */
export async function checkStatePaths(config: Pick<ServiceConfig, 'auditLogPath' | 'artifactDir' | 'configPath'>): Promise<void> {
  const audit = await kindOf(config.auditLogPath);
  if (audit !== 'file' && audit !== 'missing') {
    throw new ConfigError(`config ${config.configPath}: audit_log_path ${config.auditLogPath} is a ${audit}, not a file`, [{ path: '/audit_log_path', message: `is a ${audit}` }]);
  }
  const artifacts = await kindOf(config.artifactDir);
  if (artifacts !== 'directory' && artifacts !== 'missing') {
    throw new ConfigError(`config ${config.configPath}: artifact_dir ${config.artifactDir} is a ${artifacts}, not a directory`, [{ path: '/artifact_dir', message: `is a ${artifacts}` }]);
  }
}
