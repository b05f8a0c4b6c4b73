/**
 * The deployment a product benchmark measures: this build of svc on scratch
 * storage (SQLite + a chunk directory in a temporary state dir), its real
 * HTTP server on loopback, and the local mock upstream from
 * tools/mock-openai-upstream in its own process. A benchmark never writes
 * into the live deployment's database, chunk store or ledger: the live
 * ledger records only that a run happened and its results digest
 * (docs/decisions/094-benchmark-runs.md).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { type SvcApp, createSvcApp } from '../app.ts';
import { loadConfig } from '../config/load.ts';
import { buildServer } from '../http/server.ts';

const MOCK_MAIN = fileURLToPath(new URL('../../../tools/mock-openai-upstream/main.ts', import.meta.url));

export interface ScratchDeployment {
  /** Base URL of the scratch svc server (no trailing slash). */
  url: string;
  /** The admin key of the scratch server (random, never persisted). */
  adminKey: string;
  /** Base URL (`…/v1`) of the mock upstream. */
  upstreamUrl: string;
  stateDir: string;
  app: SvcApp;
  close(): Promise<void>;
}

/** Starts the mock upstream in a child process and waits for its `listening` line. */
export async function startMockUpstreamProcess(behaviors: Record<string, string> = {}): Promise<{ url: string; child: ChildProcess }> {
  const args = [MOCK_MAIN, '--port', '0', ...Object.entries(behaviors).flatMap(([model, b]) => ['--behavior', `${model}=${b}`])];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    const onExit = (code: number | null) => reject(new Error(`mock upstream exited early (code ${code})`));
    child.once('exit', onExit);
    lines.once('line', (line) => {
      child.off('exit', onExit);
      try {
        resolve((JSON.parse(line) as { base_url: string }).base_url);
      } catch {
        reject(new Error('mock upstream printed no listening line'));
      }
    });
  });
  return { url, child };
}

export interface ScratchOptions {
  /** Mock upstream behaviour per model id (tools/mock-openai-upstream `--behavior`). */
  upstreamBehaviors?: Record<string, string>;
  /** Extra tenant-bound keys: token → tenant (role writer). */
  tenantKeys?: Record<string, string>;
}

/** The models the scratch providers offer; `mock-flaky` answers as `upstreamBehaviors` says and falls back to `mock-large`. */
export const SCRATCH_MODELS = { small: 'mock-small', large: 'mock-large', flaky: 'mock-flaky', embed: 'mock-embed' } as const;

export async function startScratchDeployment(options: ScratchOptions = {}): Promise<ScratchDeployment> {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-'));
  const mock = await startMockUpstreamProcess(options.upstreamBehaviors);
  const adminKey = randomBytes(24).toString('hex');
  // An explicit environment: nothing of the live deployment (database URL, keys, providers) reaches the scratch one.
  const env: Record<string, string> = {
    SVC_STATE_DIR: stateDir,
    SVC_LOCAL_API_KEY: adminKey,
    SVC_LOG_LEVEL: 'warn',
    SVC_PROVIDERS_JSON: JSON.stringify([
      {
        name: 'mock',
        base_url: mock.url,
        fallback_model: SCRATCH_MODELS.large,
        models: [{ id: SCRATCH_MODELS.small, size_class: 'small' }, { id: SCRATCH_MODELS.large, size_class: 'large' }, { id: SCRATCH_MODELS.flaky, size_class: 'small' }, { id: SCRATCH_MODELS.embed, size_class: 'small', capabilities: ['embeddings'] }],
      },
    ]),
    ...(options.tenantKeys
      ? { SVC_API_KEYS_JSON: JSON.stringify(Object.fromEntries(Object.entries(options.tenantKeys).map(([token, tenant]) => [token, { actor: `bench-${tenant}`, tenant, roles: ['writer'] }]))) }
      : {}),
  };
  let app: SvcApp | undefined;
  let server: FastifyInstance | undefined;
  const close = async () => {
    await server?.close();
    await app?.close();
    mock.child.kill('SIGTERM');
    rmSync(stateDir, { recursive: true, force: true });
  };
  try {
    app = await createSvcApp(loadConfig({ env, overrides: { 'server.port': 0 } }), { env });
    server = await buildServer(app);
    const url = await server.listen({ host: '127.0.0.1', port: 0 });
    return { url, adminKey, upstreamUrl: mock.url, stateDir, app, close };
  } catch (err) {
    await close();
    throw err;
  }
}
