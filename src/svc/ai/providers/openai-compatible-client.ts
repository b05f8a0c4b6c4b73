/**
 * HTTP client for one OpenAI-compatible upstream. This is the hot path, so
 * it sits directly on `node:http`/`node:https` with a keep-alive agent
 * (measured faster than `fetch` for small JSON calls; see
 * bench/results/gateway-overhead.md) and does no work beyond framing.
 *
 * Failures come out as `SvcError`: timeouts → `backend_timeout`, HTTP
 * errors → `model_route_failed` with retryability from the status, broken
 * bodies → `model_route_failed`.
 */
import http from 'node:http';
import https from 'node:https';
import { SvcError } from '../../errors.ts';
import { DEFAULT_TIMEOUTS, type ProviderConfig } from './provider-config.ts';
import { SseDecoder } from './sse-decoder.ts';
import { malformedUpstreamError, upstreamNetworkError, upstreamStatusError, upstreamTimeoutError } from './upstream-error.ts';

interface OpenResponse {
  response: http.IncomingMessage;
  /** Aborts the request and its socket. */
  abort(): void;
}

export class OpenAICompatibleClient {
  readonly name: string;
  readonly #base: URL;
  readonly #basePath: string;
  readonly #transport: typeof http | typeof https;
  readonly #agent: http.Agent;
  readonly #apiKeyEnv: string | undefined;
  readonly #env: NodeJS.ProcessEnv;
  readonly #timeouts: { connect_ms: number; request_ms: number; stream_idle_ms: number };

  constructor(provider: ProviderConfig, env: NodeJS.ProcessEnv = process.env) {
    this.name = provider.name;
    this.#base = new URL(provider.base_url);
    this.#basePath = this.#base.pathname.replace(/\/$/, '');
    this.#transport = this.#base.protocol === 'https:' ? https : http;
    const agentOptions = { keepAlive: true, maxSockets: provider.max_connections ?? 256, maxFreeSockets: 64, scheduling: 'lifo' as const };
    this.#agent = this.#base.protocol === 'https:' ? new https.Agent(agentOptions) : new http.Agent(agentOptions);
    this.#apiKeyEnv = provider.api_key_env;
    this.#env = env;
    this.#timeouts = { ...DEFAULT_TIMEOUTS, ...provider.timeouts };
  }

  /** POSTs JSON and returns the parsed JSON answer of a 2xx response. */
  async postJson(path: string, body: unknown): Promise<unknown> {
    const { response } = await this.#open('POST', path, body);
    const text = await this.#readBody(response);
    return this.#parse(text);
  }

  async getJson(path: string): Promise<unknown> {
    const { response } = await this.#open('GET', path, undefined);
    return this.#parse(await this.#readBody(response));
  }

  /**
   * POSTs a streaming request and yields each SSE `data` payload parsed as
   * JSON, ending at `data: [DONE]` (or at the end of the body). Breaking out
   * of the loop aborts the upstream request.
   */
  async *postStream(path: string, body: unknown): AsyncGenerator<unknown, void, undefined> {
    const { response, abort } = await this.#open('POST', path, body);
    const decoder = new SseDecoder();
    const idleMs = this.#timeouts.stream_idle_ms;
    let finished = false;
    response.setTimeout(idleMs, () => response.destroy(upstreamTimeoutError(this.name, 'stream_idle', idleMs)));
    try {
      for await (const chunk of response as AsyncIterable<Buffer>) {
        for (const data of decoder.push(chunk)) {
          if (data === '[DONE]') {
            finished = true;
            return;
          }
          yield this.#parse(data);
        }
      }
      for (const data of decoder.end()) if (data !== '[DONE]') yield this.#parse(data);
      finished = true;
    } catch (err) {
      throw err instanceof SvcError ? err : upstreamNetworkError(this.name, err);
    } finally {
      if (!finished) abort();
      else response.resume();
    }
  }

  /** Closes pooled connections (server shutdown, tests). */
  close(): void {
    this.#agent.destroy();
  }

  #headers(body: string | undefined): http.OutgoingHttpHeaders {
    const headers: http.OutgoingHttpHeaders = { accept: 'application/json, text/event-stream' };
    if (body !== undefined) {
      headers['content-type'] = 'application/json';
      headers['content-length'] = Buffer.byteLength(body);
    }
    if (this.#apiKeyEnv !== undefined) {
      const key = this.#env[this.#apiKeyEnv];
      if (key === undefined || key === '') {
        throw new SvcError('model_route_failed', `provider '${this.name}' needs its key in the environment variable ${this.#apiKeyEnv}, which is not set`, { retryable: false });
      }
      headers.authorization = `Bearer ${key}`;
    }
    return headers;
  }

  #open(method: 'GET' | 'POST', path: string, body: unknown): Promise<OpenResponse> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers = this.#headers(payload);
    return new Promise<OpenResponse>((resolve, reject) => {
      const req = this.#transport.request({
        protocol: this.#base.protocol,
        hostname: this.#base.hostname,
        port: this.#base.port,
        path: `${this.#basePath}${path}`,
        method,
        agent: this.#agent,
        headers,
      });
      let settled = false;
      const fail = (err: SvcError) => {
        if (settled) return;
        settled = true;
        clearTimeout(requestTimer);
        req.destroy();
        reject(err);
      };
      const requestTimer = setTimeout(() => fail(upstreamTimeoutError(this.name, 'request', this.#timeouts.request_ms)), this.#timeouts.request_ms);
      req.on('socket', (socket) => {
        if (!socket.connecting) return;
        const connectTimer = setTimeout(() => fail(upstreamTimeoutError(this.name, 'connect', this.#timeouts.connect_ms)), this.#timeouts.connect_ms);
        socket.once('connect', () => clearTimeout(connectTimer));
        socket.once('close', () => clearTimeout(connectTimer));
      });
      req.on('error', (err) => fail(err instanceof SvcError ? err : upstreamNetworkError(this.name, err)));
      req.on('response', (response) => {
        if (settled) {
          response.resume();
          return;
        }
        const status = response.statusCode ?? 0;
        if (status >= 200 && status < 300) {
          settled = true;
          clearTimeout(requestTimer);
          resolve({ response, abort: () => req.destroy() });
          return;
        }
        // Error bodies are small; read them for the error type/code, then fail.
        this.#readBody(response).then(
          (text) => {
            let parsed: unknown;
            try {
              parsed = JSON.parse(text);
            } catch {
              parsed = undefined;
            }
            fail(upstreamStatusError(this.name, status, parsed));
          },
          () => fail(upstreamStatusError(this.name, status, undefined)),
        );
      });
      req.end(payload);
    });
  }

  #readBody(response: http.IncomingMessage): Promise<string> {
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      const timer = setTimeout(() => response.destroy(upstreamTimeoutError(this.name, 'request', this.#timeouts.request_ms)), this.#timeouts.request_ms);
      response.on('data', (c: Buffer) => chunks.push(c));
      response.on('end', () => {
        clearTimeout(timer);
        resolve(Buffer.concat(chunks).toString('utf8'));
      });
      response.on('error', (err) => {
        clearTimeout(timer);
        reject(err instanceof SvcError ? err : upstreamNetworkError(this.name, err));
      });
    });
  }

  #parse(text: string): unknown {
    try {
      return JSON.parse(text);
    } catch {
      throw malformedUpstreamError(this.name, 'invalid JSON');
    }
  }
}
