/**
 * Starts a real svc (app + fastify on a real loopback port) for whole-service
 * tests, on either engine, with a fixed set of API keys:
 * - ADMIN_KEY: the local admin (SVC_LOCAL_API_KEY)
 * - KEYS.*: principals from SVC_API_KEYS_JSON (tenant-bound writer, reader, …)
 */
import type { FastifyInstance } from 'fastify';
import { type SvcApp, createSvcApp } from '../../src/svc/app.ts';
import { loadConfig } from '../../src/svc/config/load.ts';
import { buildServer } from '../../src/svc/http/server.ts';
import { type EngineName, type EngineTarget, engineTarget } from './engines.ts';

export const ADMIN_KEY = 'test-admin-key-0123456789abcdef';

export const KEYS = {
  acmeWriter: 'acme-writer-key-0123456789abcdef',
  acmeReader: 'acme-reader-key-0123456789abcdef',
  globexWriter: 'globex-writer-key-0123456789abcd',
  auditor: 'auditor-key-0123456789abcdefghij',
  publisher: 'publisher-key-0123456789abcdefgh',
  approver: 'approver-key-0123456789abcdefghi',
  operator: 'operator-key-0123456789abcdefghi',
  /** Looks like it names a role; grants only what configuration says (reader). */
  prefixShaped: 'admin:root-0123456789abcdefghijkl',
} as const;

export const API_KEYS_JSON = JSON.stringify({
  [KEYS.acmeWriter]: { actor: 'acme-writer', tenant: 'acme', roles: ['writer'] },
  [KEYS.acmeReader]: { actor: 'acme-reader', tenant: 'acme', roles: ['reader'] },
  [KEYS.globexWriter]: { actor: 'globex-writer', tenant: 'globex', roles: ['writer'] },
  [KEYS.auditor]: { actor: 'auditor', roles: ['auditor'] },
  [KEYS.publisher]: { actor: 'publisher', roles: ['policy-publisher'] },
  [KEYS.approver]: { actor: 'approver', roles: ['approver'] },
  [KEYS.operator]: { actor: 'operator', roles: ['operator'] },
  [KEYS.prefixShaped]: { actor: 'prefix-shaped', roles: ['reader'] },
});

export interface TestServer {
  app: SvcApp;
  server: FastifyInstance;
  url: string;
  target: EngineTarget;
  /** fetch against the server with a key (default: admin). JSON bodies are serialised. */
  call(method: string, route: string, options?: { key?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<Response>;
  close(): Promise<void>;
}

export interface StartOptions {
  engine?: EngineName;
  env?: Record<string, string>;
  overrides?: Record<string, unknown>;
}

export async function startTestServer(options: StartOptions = {}): Promise<TestServer> {
  const target = await engineTarget(options.engine ?? 'sqlite');
  const env: Record<string, string | undefined> = {
    SVC_STATE_DIR: target.stateDir,
    SVC_LOCAL_API_KEY: ADMIN_KEY,
    SVC_API_KEYS_JSON: API_KEYS_JSON,
    SVC_LOG_LEVEL: 'debug',
    ...(target.databaseUrl ? { SVC_DATABASE_URL: target.databaseUrl } : {}),
    ...options.env,
  };
  const loaded = loadConfig({ env, overrides: { 'server.port': 0, ...options.overrides } });
  const app = await createSvcApp(loaded, { env, ...(target.pgSchema ? { pgSchema: target.pgSchema } : {}) });
  const server = await buildServer(app);
  const url = await server.listen({ host: '127.0.0.1', port: 0 });
  return {
    app,
    server,
    url,
    target,
    call(method, route, o = {}) {
      const headers: Record<string, string> = { ...o.headers };
      const key = o.key === undefined ? ADMIN_KEY : o.key;
      if (key !== null) headers['X-API-Key'] = key;
      let body: string | null = null;
      if (o.body !== undefined) {
        headers['content-type'] ??= 'application/json';
        body = typeof o.body === 'string' ? o.body : JSON.stringify(o.body);
      }
      return fetch(`${url}${route}`, { method, headers, body });
    },
    async close() {
      await server.close();
      await app.close();
      await target.cleanup();
    },
  };
}
