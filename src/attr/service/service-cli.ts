/**
 * `attr-service --config <path> [--host <host>] [--port <port>]`. Loads the
 * config, builds the app, listens, and prints one JSON line
 * `{"event":"listening","url":...,"ready":...}` on stdout (smoke tools and
 * tests read the bound port from it when `--port 0`). SIGINT/SIGTERM close
 * the server gracefully: in-flight requests finish and queued audit entries
 * are written before exit.
 */
import { Command, InvalidArgumentError } from 'commander';
import { ConfigError, loadServiceConfig, withListener } from '../config/service-config.ts';
import { createAttrApp } from './attr-app.ts';
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
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err;
    process.stderr.write(`attr-service: ${err.message}\n`);
    return 2;
  }
  const app = await createAttrApp(config);
  const url = await app.listen();
  process.stdout.write(`${JSON.stringify({ event: 'listening', url, ready: app.gate.ready })}\n`);
  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve();
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
  await app.close();
  return 0;
}
