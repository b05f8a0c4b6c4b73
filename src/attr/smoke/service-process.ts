/**
 * Starts the REAL attr service as a child process (`node bin/attr-service.mjs`)
 * on 127.0.0.1 and a free port, with a temporary directory holding its config,
 * audit log and artifacts, and a fresh random bearer token whose SHA-256 is
 * passed in `ATTR_SERVICE_TOKEN_SHA256`. Used by the smoke tools, the tests
 * and the benchmark.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { configFromTemplate } from '../config/config-template.ts';
import type { ServiceConfigDocument } from '../config/service-config-schema.ts';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const SERVICE_BIN = path.join(REPO_ROOT, 'bin/attr-service.mjs');
export const DEFAULT_SMOKE_CORPUS = path.join(REPO_ROOT, 'examples/attr-corpus/corpus.jsonl');

export interface ServiceProcessOptions {
  corpusPath?: string;
  /** Applied to the default template before it is written. */
  configure?: (document: ServiceConfigDocument) => void;
  /** Extra environment for the child (provider keys, for example). */
  env?: Record<string, string>;
  /** Leave ATTR_SERVICE_TOKEN_SHA256 unset (to test the not-ready path). */
  withoutToken?: boolean;
  /** Wait until /readyz answers 200 (default true). */
  waitReady?: boolean;
  startTimeoutMs?: number;
}

export interface ServiceProcess {
  url: string;
  token: string;
  dir: string;
  configPath: string;
  auditLogPath: string;
  artifactDir: string;
  child: ChildProcess;
  /** Text the child wrote to stderr so far (start-up failures, logs). */
  stderr(): string;
  /** fetch against the service; `auth: true` adds the bearer token. */
  request(pathname: string, init?: RequestInit & { auth?: boolean; json?: unknown }): Promise<Response>;
  stop(): Promise<void>;
}

export async function startServiceProcess(options: ServiceProcessOptions = {}): Promise<ServiceProcess> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'attr-smoke-'));
  const configPath = path.join(dir, 'attr-service.json');
  const auditLogPath = path.join(dir, 'audit/audit.jsonl');
  const artifactDir = path.join(dir, 'artifacts');
  const document = configFromTemplate('default', {
    corpusPath: options.corpusPath ?? DEFAULT_SMOKE_CORPUS,
    auditLogPath,
    artifactDir,
    outputPath: configPath,
  });
  document.service.port = 0;
  options.configure?.(document);
  await writeFile(configPath, `${JSON.stringify(document, null, 2)}\n`);

  const token = randomBytes(24).toString('base64url');
  const env: Record<string, string> = { PATH: process.env.PATH ?? '', ATTR_SERVICE_LOG_LEVEL: 'warn', ...options.env };
  if (!options.withoutToken) env.ATTR_SERVICE_TOKEN_SHA256 = createHash('sha256').update(token).digest('hex');
  const child = spawn(process.execPath, [SERVICE_BIN, '--config', configPath, '--host', '127.0.0.1', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (s: string) => {
    if (stderr.length < 100_000) stderr += s;
  });

  const stop = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    }
    await rm(dir, { recursive: true, force: true });
  };

  let url: string;
  try {
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`service did not start within ${options.startTimeoutMs ?? 30_000} ms: ${stderr.slice(0, 2000)}`)), options.startTimeoutMs ?? 30_000);
      const lines = createInterface({ input: child.stdout! });
      lines.on('line', (line) => {
        try {
          const event = JSON.parse(line) as { event?: string; url?: string };
          if (event.event === 'listening' && event.url) {
            clearTimeout(timer);
            resolve(event.url);
          }
        } catch {
          // not our start-up line
        }
      });
      child.once('exit', (code) => {
        clearTimeout(timer);
        reject(new Error(`service exited with code ${code} before listening: ${stderr.slice(0, 2000)}`));
      });
    });
  } catch (err) {
    await stop();
    throw err;
  }

  const request = (pathname: string, init: RequestInit & { auth?: boolean; json?: unknown } = {}): Promise<Response> => {
    const { auth, json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (auth) headers.set('authorization', `Bearer ${token}`);
    if (json !== undefined) headers.set('content-type', 'application/json');
    return fetch(`${url}${pathname}`, { ...rest, headers, ...(json !== undefined ? { body: JSON.stringify(json), method: rest.method ?? 'POST' } : {}) });
  };

  if (options.waitReady ?? true) {
    // Readiness is settled before the service listens (artifacts are produced first), so one look suffices.
    const res = await request('/readyz');
    if (res.status !== 200) {
      const body = (await res.json()) as { checks?: Array<{ name: string; status: string; detail: string }> };
      await stop();
      const failed = (body.checks ?? []).filter((c) => c.status !== 'passed').map((c) => `${c.name}: ${c.detail}`);
      throw new Error(`service is not ready: ${failed.join('; ')}`);
    }
  }

  return { url, token, dir, configPath, auditLogPath, artifactDir, child, stderr: () => stderr, request, stop };
}
