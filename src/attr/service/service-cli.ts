/**
 * `attr-service --config <path> [--host <host>] [--port <port>]`. Loads the
 * config, builds the app, listens, and prints one JSON line
 * `{"event":"listening","url":...,"ready":...}` on stdout (smoke tools and
 * tests read the bound port from it when `--port 0`). SIGINT/SIGTERM close
 * the server gracefully: in-flight requests finish and queued audit entries
 * are written before exit.
 *
 * Before anything is opened, the state (audit log + artifact dir) is locked
 * (state-lock.ts): a second instance on the same state exits 3 and changes
 * nothing. Exit codes: 0 clean stop, 2 config error, 3 state locked, 4 listen failed.
 */
import { Command, InvalidArgumentError } from 'commander';
import { ConfigError, loadServiceConfig, withListener } from '../config/service-config.ts';
import { checkStatePaths } from '../config/state-paths.ts';
import { createAttrApp } from './attr-app.ts';
import { acquireStateLock, StateLockedError, type StateLock } from './state-lock.ts';
import { parseCliArgs } from '../cli-parse.ts';

function parsePort(value: string): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65_535) throw new InvalidArgumentError('port must be an integer 0-65535');
  return port;
}

export async function runServiceCli(argv: string[]): Promise<number> {
  const program = new Command('attr-service')
    .description('Run the attr source-attribution HTTP service.')
    .requiredOption('--config <path>', 'service config (attr-service-config/v1)')
    .option('--host <host>', 'listen address (overrides service.host)')
    .option('--port <port>', 'listen port, 0 for any free port (overrides service.port)', parsePort);
  const stop = parseCliArgs(program, argv);
  if (stop !== undefined) return stop;
  const opts = program.opts<{ config: string; host?: string; port?: number }>();
  let config;
  try {
    config = withListener(await loadServiceConfig(opts.config), { host: opts.host, port: opts.port });
    await checkStatePaths(config);
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`attr-service: ${err.message}\n`);
    return 2;
  }
  let lock: StateLock;
  try {
    lock = acquireStateLock(config);
  } catch (err) {
    if (!(err instanceof StateLockedError)) throw err;
    process.stderr.write(`attr-service: ${err.message}\n`);
    return 3;
  }
  const app = await createAttrApp(config).catch((err: unknown) => {
    lock.release();
    throw err;
  });
  let url: string;
  try {
    url = await app.listen();
  } catch (err) {
    await app.close();
    lock.release();
    process.stderr.write(`attr-service: cannot listen on ${config.host}:${config.port}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}\n`);
    return 4;
  }
  process.stdout.write(`${JSON.stringify({ event: 'listening', url, ready: app.gate.ready })}\n`);
  // SIGHUP rotates the audit log (attr-service-audit-rotate sends it); the outcome is one JSON line.
  const rotate = (): void => {
    app.auditLog.rotate().then(
      (r) => process.stdout.write(`${JSON.stringify({ event: 'audit_rotated', segment: r.segment, segment_path: r.segmentPath, head_seq: r.headSeq, head_hash: r.headHash })}\n`),
      (err: unknown) => process.stderr.write(`attr-service: audit log rotation failed: ${(err as Error).message}\n`),
    );
  };
  process.on('SIGHUP', rotate);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  process.off('SIGHUP', rotate);
  await app.close();
  lock.release();
  return 0;
}
