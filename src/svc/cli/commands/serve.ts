/** `svc init` and `svc serve`. */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import YAML from 'yaml';
import { loadCredentials } from '../../auth/credentials.ts';
import { INIT_HEADER, initConfigDocument } from '../../config/init-document.ts';
import { CONFIG_FILE_NAME, loadConfig } from '../../config/load.ts';
import { SvcError } from '../../errors.ts';
import { EXIT, run } from '../runtime.ts';

export function register(program: Command): void {
  program
    .command('init')
    .description('create the state dir, its config file and (without configured keys) a development API key')
    .option('--state-dir <dir>', 'state directory (default: SVC_STATE_DIR or .svc)')
    .option('--force', 'overwrite an existing config file')
    .action((o, cmd: Command) =>
      run(cmd, async () => {
        const stateDir = path.resolve(o.stateDir ?? process.env.SVC_STATE_DIR ?? '.svc');
        mkdirSync(stateDir, { recursive: true, mode: 0o700 });
        const file = path.join(stateDir, CONFIG_FILE_NAME);
        if (existsSync(file) && !o.force) throw new Error(`${file} exists (use --force to overwrite)`);
        const doc = initConfigDocument(stateDir);
        writeFileSync(file, `${INIT_HEADER}${YAML.stringify(doc)}`, { mode: 0o600 });
        // What was written must load: the same validation `svc serve` runs.
        loadConfig({ env: { SVC_STATE_DIR: stateDir }, file });
        const creds = loadCredentials({ localApiKey: process.env.SVC_LOCAL_API_KEY, apiKeysJson: process.env.SVC_API_KEYS_JSON, stateDir, allowDevKey: true });
        return { state_dir: stateDir, config_file: file, dev_api_key_file: creds.devKeyFile ?? null };
      }),
    );

  program
    .command('serve')
    .description('run the HTTP server and, unless grpc.enabled is false, the gRPC server')
    .option('--config <file>', 'config file (default: SVC_CONFIG or <state_dir>/config.yaml)')
    .option('--host <host>')
    .option('--port <port>', 'port (0 picks a free one)', (v) => Number(v))
    .option('--grpc-port <port>', 'gRPC port (0 picks a free one; default grpc.port, 9090)', (v) => Number(v))
    .action(async (o) => {
      try {
        await serve(o);
      } catch (err) {
        explainStartupFailure(err);
      }
    });
}

/**
 * One line instead of a stack trace: a configuration problem (an unknown
 * key, a bad value, a malformed SVC_API_KEYS_JSON) exits 2 with its path and
 * fix; anything else that stops the start (a database that cannot be
 * reached) exits 1 with its message.
 */
function explainStartupFailure(err: unknown): never {
  if (err instanceof SvcError && err.code === 'invalid_request') {
    process.stderr.write(`svc: configuration error: ${err.message}\n`);
    process.exit(EXIT.usage);
  }
  process.stderr.write(`svc: cannot start: ${(err as Error)?.message ?? String(err)}\n`);
  process.exit(EXIT.failed);
}

async function serve(o: { config?: string; host?: string; port?: number; grpcPort?: number }): Promise<void> {
  const overrides: Record<string, unknown> = {};
  if (o.host) overrides['server.host'] = o.host;
  if (o.port !== undefined) overrides['server.port'] = o.port;
  if (o.grpcPort !== undefined) overrides['grpc.port'] = o.grpcPort;
  const loaded = loadConfig({ file: o.config, overrides });
  // Loaded here, not at the top: other commands should not pay for the server's modules.
  const { createSvcApp } = await import('../../app.ts');
  const { buildServer } = await import('../../http/server.ts');
  const app = await createSvcApp(loaded, { allowDevKey: true });
  const server = await buildServer(app);
  const address = await server.listen({ host: loaded.config.server.host, port: loaded.config.server.port });
  // One write: whoever sees the address (a user, a script waiting for it) also sees where the dev key is,
  // before the gRPC server's start-up.
  const banner = [`svc listening on ${address}`, `storage: ${app.databaseDescription}; state dir: ${app.stateDir}`];
  if (app.credentials.devKeyFile) banner.push(`development API key: ${app.credentials.devKeyFile} (send it as X-API-Key)`);
  process.stdout.write(`${banner.join('\n')}\n`);
  const grpcServer = loaded.config.grpc.enabled
    ? await (await import('../../grpc/server.ts')).startGrpcServer(app, { host: loaded.config.grpc.host, port: loaded.config.grpc.port })
    : undefined;
  if (grpcServer) process.stdout.write(`svc gRPC listening on ${grpcServer.address} (docs/grpc.md)\n`);
  app.log.info({ event_type: 'server.started', address, grpc_address: grpcServer?.address }, 'svc started');
  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ event_type: 'server.stopping', signal }, 'svc stopping');
    const timer = setTimeout(() => process.exit(1), loaded.config.server.shutdown_grace_ms).unref();
    await Promise.all([server.close(), grpcServer?.close()]);
    await app.close();
    clearTimeout(timer);
    process.exit(0);
  };
  // SIGHUP re-reads the scheduler's forecast file (docs/scheduler.md); the outcome is logged.
  process.on('SIGHUP', () => void app.forecastFile.reloadOnSignal());
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}
