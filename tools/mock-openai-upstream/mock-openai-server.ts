/**
 * A deterministic OpenAI-compatible upstream for tests and benchmarks.
 * Same request, same answer. Behaviour is chosen per model id (so one
 * mock serves a healthy primary and a broken one side by side), with
 * configurable latency and failure injection:
 *
 * - `ok`             well-formed answer (JSON content with a `[1]` citation)
 * - `empty`          empty assistant message (fails `chat_completion`)
 * - `plain_text`     non-JSON content without a citation (fails `json_shape` and citations)
 * - `malformed`      a body that is not JSON
 * - `status:<code>`  that HTTP status with an OpenAI error body
 * - `hang`           never answers (timeouts)
 * - `stream_cut`     stream stops after the first chunk without `[DONE]`
 *
 * Never used to answer a user's request: svc's providers are configured real
 * upstreams. It ships in tools/ for trying svc offline (`node
 * tools/mock-openai-upstream/main.ts`) and as the upstream of the load-local-v1
 * benchmark, where svc's gateway latency is measured against a bare hop to it.
 */
import { createHash } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type MockBehavior = 'ok' | 'empty' | 'plain_text' | 'malformed' | 'hang' | 'stream_cut' | `status:${number}`;

export interface MockOptions {
  /** Added before every answer, milliseconds. */
  latencyMs?: number;
  /** Per model id; default `ok`. */
  behaviors?: Record<string, MockBehavior>;
  /** Every n-th request (1-based count) answers 500: deterministic failure injection. */
  failEvery?: number;
  /** Models listed by GET /models. */
  models?: string[];
  embeddingDimensions?: number;
  /** Keep every call in `calls` (tests inspect them); off for long runs. Default true. */
  recordCalls?: boolean;
  /** Listen address and port; default 127.0.0.1 and any free port. */
  host?: string;
  port?: number;
}

export interface MockCall {
  path: string;
  model: string | undefined;
  stream: boolean;
  body: Record<string, unknown>;
  authorization: string | undefined;
}

export interface MockOpenAI {
  /** Base URL including `/v1`. */
  url: string;
  calls: MockCall[];
  setBehavior(model: string, behavior: MockBehavior): void;
  close(): Promise<void>;
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function lastUserText(body: Record<string, unknown>): string {
  const messages = Array.isArray(body.messages) ? (body.messages as Array<{ role?: string; content?: unknown }>) : [];
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i]!.role === 'user') return typeof messages[i]!.content === 'string' ? (messages[i]!.content as string) : JSON.stringify(messages[i]!.content);
  return typeof body.prompt === 'string' ? body.prompt : JSON.stringify(body.prompt ?? '');
}

function countWords(body: Record<string, unknown>): number {
  return Math.max(1, JSON.stringify(body.messages ?? body.prompt ?? body.input ?? '').split(/\s+/).length);
}

function answerText(model: string, body: Record<string, unknown>, behavior: MockBehavior): string {
  const question = lastUserText(body);
  if (behavior === 'empty') return '';
  if (behavior === 'plain_text') return `plain answer from ${model}`;
  return JSON.stringify({ answer: `${model} answers ${digest(question).slice(0, 12)}`, question_chars: question.length, citation: '[1]' });
}

function embeddingFor(text: string, dims: number): number[] {
  const h = createHash('sha256').update(text).digest();
  return Array.from({ length: dims }, (_, i) => (h[i % h.length]! - 128) / 128);
}

export async function startMockOpenAI(options: MockOptions = {}): Promise<MockOpenAI> {
  const behaviors = new Map(Object.entries(options.behaviors ?? {}));
  const calls: MockCall[] = [];
  const dims = options.embeddingDimensions ?? 8;
  let count = 0;
  const hanging = new Set<http.ServerResponse>();

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      count++;
      const path = (req.url ?? '/').replace(/^\/v1/, '');
      let body: Record<string, unknown> = {};
      try {
        body = chunks.length ? (JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>) : {};
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: 'bad json', type: 'invalid_request_error' } }));
        return;
      }
      const model = typeof body.model === 'string' ? body.model : undefined;
      const stream = body.stream === true;
      if (options.recordCalls !== false) calls.push({ path, model, stream, body, authorization: req.headers.authorization });
      const behavior: MockBehavior = options.failEvery && count % options.failEvery === 0 ? 'status:500' : (behaviors.get(model ?? '') ?? 'ok');
      const respond = () => handle(res, req.method ?? 'GET', path, model ?? 'unknown', body, stream, behavior);
      if (options.latencyMs) setTimeout(respond, options.latencyMs);
      else respond();
    });
  });

  function handle(res: http.ServerResponse, method: string, path: string, model: string, body: Record<string, unknown>, stream: boolean, behavior: MockBehavior): void {
    if (method === 'GET' && path === '/models') {
      const data = (options.models ?? []).map((id) => ({ id, object: 'model', created: 0, owned_by: 'mock' }));
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data }));
      return;
    }
    if (behavior === 'hang') {
      hanging.add(res);
      return;
    }
    if (behavior.startsWith('status:')) {
      const status = Number(behavior.slice(7));
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `mock failure ${status}`, type: status >= 500 ? 'server_error' : 'invalid_request_error', code: `mock_${status}` } }));
      return;
    }
    if (behavior === 'malformed') {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"choices": [ this is not json');
      return;
    }
    const promptTokens = countWords(body);
    if (path === '/embeddings') {
      const inputs = typeof body.input === 'string' ? [body.input] : (body.input as unknown[]).map((x) => (typeof x === 'string' ? x : JSON.stringify(x)));
      const data = inputs.map((text, index) => {
        const vector = embeddingFor(text, dims);
        const embedding = body.encoding_format === 'base64' ? Buffer.from(Float32Array.from(vector).buffer).toString('base64') : vector;
        return { object: 'embedding', index, embedding };
      });
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ object: 'list', data, model, usage: { prompt_tokens: promptTokens, total_tokens: promptTokens } }));
      return;
    }
    const text = answerText(model, body, behavior);
    const completionTokens = Math.max(1, Math.ceil(text.length / 4));
    const usage = { prompt_tokens: promptTokens, completion_tokens: completionTokens, total_tokens: promptTokens + completionTokens };
    const id = `mock-${digest(JSON.stringify(body)).slice(0, 16)}`;
    const chat = path === '/chat/completions';
    if (!stream) {
      const payload = chat
        ? { id, object: 'chat.completion', created: 1_700_000_000, model, choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop', logprobs: null }], usage }
        : { id, object: 'text_completion', created: 1_700_000_000, model, choices: [{ index: 0, text, finish_reason: 'stop', logprobs: null }], usage };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(payload));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    const base = { id, object: chat ? 'chat.completion.chunk' : 'text_completion', created: 1_700_000_000, model };
    const pieces = text.length === 0 ? [''] : [text.slice(0, Math.ceil(text.length / 3)), text.slice(Math.ceil(text.length / 3), Math.ceil((2 * text.length) / 3)), text.slice(Math.ceil((2 * text.length) / 3))];
    const frame = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
    pieces.forEach((piece, i) => {
      if (chat) frame({ ...base, choices: [{ index: 0, delta: i === 0 ? { role: 'assistant', content: piece } : { content: piece }, finish_reason: null }] });
      else frame({ ...base, choices: [{ index: 0, text: piece, finish_reason: null, logprobs: null }] });
    });
    if (behavior === 'stream_cut') {
      res.destroy();
      return;
    }
    if (chat) frame({ ...base, choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] });
    else frame({ ...base, choices: [{ index: 0, text: '', finish_reason: 'stop', logprobs: null }] });
    const streamOptions = body.stream_options as { include_usage?: boolean } | undefined;
    if (streamOptions?.include_usage) frame({ ...base, choices: [], usage });
    res.end('data: [DONE]\n\n');
  }

  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve));
  server.keepAliveTimeout = 30_000;
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    calls,
    setBehavior: (m, b) => behaviors.set(m, b),
    close: async () => {
      for (const r of hanging) r.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
