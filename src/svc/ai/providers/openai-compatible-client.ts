/**
 * HTTP client for one OpenAI-compatible upstream. This is the hot path, so
 * it sits on an undici connection pool (keep-alive, no fetch/WHATWG
 * streams layer) and does no work beyond framing. Measured against the
 * mock upstream on the benchmark machine: 114–149 µs of client CPU per
 * call, against 197 µs for `node:http` with a keep-alive agent and
 * 570–620 µs for `fetch` (bench/results/gateway-overhead.md).
 *
 * Failures come out as `SvcError`: timeouts → `backend_timeout`, HTTP
 * errors → `model_route_failed` with retryability from the status, broken
 * bodies → `model_route_failed`.
 */
import { type Dispatcher, Pool } from 'undici';
import { SvcError } from '../../errors.ts';
import { DEFAULT_TIMEOUTS, type ProviderConfig } from './provider-config.ts';
import { SseDecoder } from './sse-decoder.ts';
import { malformedUpstreamError, upstreamNetworkError, upstreamStatusError, upstreamTimeoutError } from './upstream-error.ts';

type Timeouts = { connect_ms: number; request_ms: number; stream_idle_ms: number };
type ResponseData = Awaited<ReturnType<Pool['request']>>;

/** Which of our timeouts an undici error code stands for. */
const TIMEOUT_PHASE: Record<string, 'connect' | 'request' | 'stream_idle'> = {
  UND_ERR_CONNECT_TIMEOUT: 'connect',
  UND_ERR_HEADERS_TIMEOUT: 'request',
  UND_ERR_BODY_TIMEOUT: 'stream_idle',
};

function errorCode(err: unknown): string | undefined {
  return typeof err === 'object' && err !== null && typeof (err as { code?: unknown }).code === 'string' ? (err as { code: string }).code : undefined;
}

export class OpenAICompatibleClient {
  readonly name: string;
  readonly #basePath: string;
  readonly #pool: Pool;
  readonly #apiKeyEnv: string | undefined;
  readonly #env: NodeJS.ProcessEnv;
  readonly #timeouts: Timeouts;
  /** Headers without / with a body, and the key they were built with. */
  readonly #headerCache: Array<{ key: string | undefined; headers: Record<string, string> } | undefined> = [undefined, undefined];

  constructor(provider: ProviderConfig, env: NodeJS.ProcessEnv = process.env) {
    this.name = provider.name;
    const base = new URL(provider.base_url);
    this.#basePath = base.pathname.replace(/\/$/, '');
    this.#timeouts = { ...DEFAULT_TIMEOUTS, ...provider.timeouts };
    this.#pool = new Pool(base.origin, { connections: provider.max_connections ?? 256, pipelining: 1, connectTimeout: this.#timeouts.connect_ms });
    this.#apiKeyEnv = provider.api_key_env;
    this.#env = env;
  }

  /** POSTs JSON and returns the parsed JSON answer of a 2xx response. */
  async postJson(path: string, body: unknown): Promise<unknown> {
    return (await this.postJsonText(path, body)).value;
  }

  /**
   * `postJson` that also returns the answer's JSON text as received, so a
   * caller that passes the answer on unchanged can send those bytes instead
   * of serialising the parsed value again.
   */
  async postJsonText(path: string, body: unknown): Promise<{ value: unknown; text: string }> {
    const text = await this.#whole('POST', path, JSON.stringify(body));
    return { value: this.#parse(text), text };
  }

  async getJson(path: string): Promise<unknown> {
    return this.#parse(await this.#whole('GET', path, undefined));
  }

  /**
   * POSTs a streaming request and yields each SSE `data` payload parsed as
   * JSON, ending at `data: [DONE]` (or at the end of the body). Breaking out
   * of the loop aborts the upstream request. `request_ms` bounds the wait
   * for the response headers, `stream_idle_ms` every silence after that.
   */
  async *postStream(path: string, body: unknown): AsyncGenerator<unknown, void, undefined> {
    const response = await this.#open('POST', path, JSON.stringify(body), undefined, this.#timeouts.stream_idle_ms);
    const decoder = new SseDecoder();
    let finished = false;
    try {
      for await (const chunk of response.body as AsyncIterable<Buffer>) {
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
      throw this.#failure(err, true);
    } finally {
      // Unfinished (client gone, error): abort the upstream request; finished: let the connection go back to the pool.
      if (!finished) response.body.destroy();
      else response.body.resume();
    }
  }

  /** Closes pooled connections (server shutdown, tests). */
  close(): Promise<void> {
    return this.#pool.destroy();
  }

  /**
   * A non-streaming call, answering the body's text: `request_ms` bounds the
   * whole exchange. Written on undici's dispatch handler rather than
   * `request()`: the answer's chunks are collected as they arrive, with no
   * body stream, AbortController or abort listeners per call (the JSON call
   * is the gateway's hot path; a call cost ~40 µs more CPU than a bare
   * proxy's hop before, bench/results/gateway-overhead.md).
   */
  #whole(method: 'GET' | 'POST', path: string, payload: string | undefined): Promise<string> {
    const ms = this.#timeouts.request_ms;
    let headers: Record<string, string>;
    try {
      headers = this.#headers(payload !== undefined);
    } catch (err) {
      return Promise.reject(err);
    }
    return new Promise<string>((resolve, reject) => {
      let controller: Dispatcher.DispatchController | undefined;
      let timedOut: SvcError | undefined;
      let settled = false;
      let status = 0;
      const chunks: Buffer[] = [];
      const settle = (err: unknown, text?: string) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        if (err === undefined) resolve(text!);
        else reject(err);
      };
      const timer = setTimeout(() => {
        timedOut = upstreamTimeoutError(this.name, 'request', ms);
        controller?.abort(timedOut);
        settle(timedOut);
      }, ms);
      const handler: Dispatcher.DispatchHandler = {
        onRequestStart: (c) => {
          controller = c;
          if (timedOut) c.abort(timedOut);
        },
        onResponseStart: (_c, statusCode) => {
          status = statusCode;
        },
        onResponseData: (_c, chunk) => {
          chunks.push(chunk);
        },
        onResponseEnd: () => {
          const text = chunks.length === 1 ? chunks[0]!.toString('utf8') : Buffer.concat(chunks).toString('utf8');
          if (status >= 200 && status < 300) return settle(undefined, text);
          let parsed: unknown;
          try {
            parsed = JSON.parse(text);
          } catch {
            parsed = undefined;
          }
          settle(upstreamStatusError(this.name, status, parsed));
        },
        onResponseError: (_c, err) => settle(timedOut ?? this.#failure(err, false)),
      };
      try {
        this.#pool.dispatch({ path: `${this.#basePath}${path}`, method, headers, body: payload ?? null, headersTimeout: ms, bodyTimeout: ms }, handler);
      } catch (err) {
        settle(this.#failure(err, false));
      }
    });
  }

  /** Sends the request; resolves with a 2xx response, otherwise reads the (small) error body and throws. */
  async #open(method: 'GET' | 'POST', path: string, payload: string | undefined, signal: AbortSignal | undefined, bodyTimeout: number): Promise<ResponseData> {
    let response: ResponseData;
    try {
      response = await this.#pool.request({
        path: `${this.#basePath}${path}`,
        method,
        headers: this.#headers(payload !== undefined),
        body: payload ?? null,
        headersTimeout: this.#timeouts.request_ms,
        bodyTimeout,
        ...(signal ? { signal } : {}),
      });
    } catch (err) {
      throw signal?.aborted ? (signal.reason as SvcError) : this.#failure(err, signal === undefined);
    }
    const status = response.statusCode;
    if (status >= 200 && status < 300) return response;
    let parsed: unknown;
    try {
      parsed = JSON.parse(await response.body.text());
    } catch {
      parsed = undefined;
    }
    throw upstreamStatusError(this.name, status, parsed);
  }

  /** Request headers; the key is read from the environment on every call (so a rotated key applies), the object rebuilt only when it changed. */
  #headers(hasBody: boolean): Record<string, string> {
    let key: string | undefined;
    if (this.#apiKeyEnv !== undefined) {
      key = this.#env[this.#apiKeyEnv];
      if (key === undefined || key === '') {
        throw new SvcError('model_route_failed', `provider '${this.name}' needs its key in the environment variable ${this.#apiKeyEnv}, which is not set`, { retryable: false });
      }
    }
    const cached = this.#headerCache[hasBody ? 1 : 0];
    if (cached !== undefined && cached.key === key) return cached.headers;
    const headers: Record<string, string> = { accept: 'application/json, text/event-stream' };
    if (hasBody) headers['content-type'] = 'application/json';
    if (key !== undefined) headers.authorization = `Bearer ${key}`;
    this.#headerCache[hasBody ? 1 : 0] = { key, headers: Object.freeze(headers) as Record<string, string> };
    return headers;
  }

  /** Maps a transport failure to the svc error a client sees (a body timeout is only "idle" on a stream). */
  #failure(err: unknown, streaming: boolean): SvcError {
    if (err instanceof SvcError) return err;
    let phase = TIMEOUT_PHASE[errorCode(err) ?? ''];
    if (phase === 'stream_idle' && !streaming) phase = 'request';
    if (phase) return upstreamTimeoutError(this.name, phase, phase === 'connect' ? this.#timeouts.connect_ms : phase === 'request' ? this.#timeouts.request_ms : this.#timeouts.stream_idle_ms);
    return upstreamNetworkError(this.name, err);
  }

  #parse(text: string): unknown {
    try {
      return JSON.parse(text);
    } catch {
      throw malformedUpstreamError(this.name, 'invalid JSON');
    }
  }
}
