/**
 * The CLI's API client. Where to connect: `--url`, `SVC_URL`, or the
 * configured host/port. Credential: `SVC_API_KEY`, else the development key
 * file in the state dir. Errors come back as the server's error body.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/**
 * Configuration loading (schema compilation, defaults) is most of the CLI's
 * start-up, and a client given SVC_URL and SVC_API_KEY never needs it: it is
 * loaded only when one of them is missing.
 */
function lazyConfig(): { loadConfig: typeof import('../config/load.ts').loadConfig; DEV_KEY_FILE: string } {
  const require = createRequire(import.meta.url);
  const { loadConfig } = require('../config/load.ts') as typeof import('../config/load.ts');
  const { DEV_KEY_FILE } = require('../auth/credentials.ts') as typeof import('../auth/credentials.ts');
  return { loadConfig, DEV_KEY_FILE };
}

export class ApiError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(status: number, body: unknown) {
    const e = (body as { error?: { code?: string; message?: string } })?.error;
    super(e ? `${e.code}: ${e.message}` : `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }
}

export interface ClientOptions {
  url?: string | undefined;
  apiKey?: string | undefined;
  env?: Record<string, string | undefined>;
}

export class SvcClient {
  readonly baseUrl: string;
  readonly #apiKey: string | undefined;

  constructor(options: ClientOptions = {}) {
    const env = options.env ?? process.env;
    let url = options.url ?? env.SVC_URL;
    let key = options.apiKey ?? env.SVC_API_KEY;
    if (!url || !key) {
      const { loadConfig, DEV_KEY_FILE } = lazyConfig();
      const { config } = loadConfig({ env });
      url ??= `http://${config.server.host === '0.0.0.0' ? '127.0.0.1' : config.server.host}:${config.server.port}`;
      const devKey = path.join(config.state_dir, DEV_KEY_FILE);
      if (!key && existsSync(devKey)) key = readFileSync(devKey, 'utf8').trim();
      if (!key && env.SVC_LOCAL_API_KEY) key = env.SVC_LOCAL_API_KEY;
    }
    this.baseUrl = url.replace(/\/$/, '');
    this.#apiKey = key;
  }

  async request(method: string, route: string, body?: unknown): Promise<{ status: number; headers: Headers; body: unknown; raw?: Uint8Array }> {
    const headers: Record<string, string> = {};
    if (this.#apiKey) headers['X-API-Key'] = this.#apiKey;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const res = await fetch(`${this.baseUrl}${route}`, { method, headers, body: body === undefined ? null : JSON.stringify(body) });
    const type = res.headers.get('content-type') ?? '';
    if (type.includes('application/json')) {
      const json = (await res.json()) as unknown;
      if (!res.ok) throw new ApiError(res.status, json);
      return { status: res.status, headers: res.headers, body: json };
    }
    const raw = new Uint8Array(await res.arrayBuffer());
    if (!res.ok) throw new ApiError(res.status, { error: { code: 'http_error', message: Buffer.from(raw).toString('utf8').slice(0, 500) } });
    return { status: res.status, headers: res.headers, body: undefined, raw };
  }

  async json<T = unknown>(method: string, route: string, body?: unknown): Promise<T> {
    return (await this.request(method, route, body)).body as T;
  }

  /** Where and as whom raw byte transfers connect (byte-transfer.ts). */
  get endpoint(): { baseUrl: string; apiKey: string | undefined } {
    return { baseUrl: this.baseUrl, apiKey: this.#apiKey };
  }
}
