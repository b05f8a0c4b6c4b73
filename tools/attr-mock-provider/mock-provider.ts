/**
 * A local, offline, OpenAI-compatible chat-completions provider for trying
 * attr's provider mode and for its smoke runs — no external key, no network.
 *
 * POST /v1/chat/completions answers with a deterministic text: the content
 * of `answerText` when given, otherwise the first chunk of the corpus source
 * that shares the most words with the last user message. Markers in the last
 * user message make it misbehave on purpose, so fail-closed handling can be
 * exercised end to end:
 *
 *   [mock:content_filter]  finish_reason "content_filter", no content
 *   [mock:length]          finish_reason "length" (truncated answer)
 *   [mock:malformed]       a body that is not JSON
 *   [mock:no_choices]      JSON without choices
 *   [mock:oversized]       an answer of `oversizedBytes` bytes
 *   [mock:http_error]      HTTP 500
 *
 * When `requiredApiKey` is set, requests without `Authorization: Bearer <key>` get 401.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { readFile } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';

export interface MockProviderOptions {
  host?: string;
  port?: number;
  answerText?: string;
  /** Corpus JSONL (attr-corpus-source/v1) to pick answers from when no answerText is given. */
  corpusPath?: string;
  requiredApiKey?: string;
  oversizedBytes?: number;
}

export interface MockProvider {
  /** Base URL to put in a provider route (`.../v1`). */
  baseUrl: string;
  /** Requests served so far. */
  readonly requestCount: number;
  close(): Promise<void>;
}

interface CorpusChunkText {
  title: string;
  text: string;
  words: Set<string>;
}

function words(text: string): Set<string> {
  return new Set(text.toLowerCase().match(/[a-z0-9]{3,}/g) ?? []);
}

async function loadChunks(corpusPath: string): Promise<CorpusChunkText[]> {
  const out: CorpusChunkText[] = [];
  for (const line of (await readFile(corpusPath, 'utf8')).split('\n')) {
    if (line.trim() === '' || line.startsWith('#')) continue;
    const source = JSON.parse(line) as { title: string; chunks: Array<{ text: string }> };
    const first = source.chunks[0];
    if (first) out.push({ title: source.title, text: first.text, words: words(`${source.title} ${first.text}`) });
  }
  return out;
}

async function readBody(req: IncomingMessage): Promise<string> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts).toString('utf8');
}

function completion(content: string | null, finishReason: string, model: string): string {
  return JSON.stringify({
    id: 'chatcmpl-mock',
    object: 'chat.completion',
    created: 0,
    model,
    choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }],
    usage: { prompt_tokens: 0, completion_tokens: 0, total_tokens: 0 },
  });
}

export async function startMockProvider(options: MockProviderOptions = {}): Promise<MockProvider> {
  const chunks = options.corpusPath ? await loadChunks(options.corpusPath) : [];
  const answerFor = (prompt: string): string => {
    if (options.answerText !== undefined) return options.answerText;
    const asked = words(prompt);
    let best: CorpusChunkText | undefined;
    let bestScore = -1;
    for (const c of chunks) {
      let score = 0;
      for (const w of asked) if (c.words.has(w)) score++;
      if (score > bestScore) {
        best = c;
        bestScore = score;
      }
    }
    return best?.text ?? 'The mock provider has no corpus and no configured answer.';
  };
  let requestCount = 0;
  const server: Server = createServer((req, res) => {
    void (async () => {
      requestCount++;
      if (req.method !== 'POST' || req.url !== '/v1/chat/completions') {
        res.writeHead(404, { 'content-type': 'application/json' }).end('{"error":{"message":"not found"}}');
        return;
      }
      if (options.requiredApiKey !== undefined && req.headers.authorization !== `Bearer ${options.requiredApiKey}`) {
        res.writeHead(401, { 'content-type': 'application/json' }).end('{"error":{"message":"invalid api key"}}');
        return;
      }
      let body: { model?: string; messages?: Array<{ role: string; content: string }> };
      try {
        body = JSON.parse(await readBody(req));
      } catch {
        res.writeHead(400, { 'content-type': 'application/json' }).end('{"error":{"message":"bad json"}}');
        return;
      }
      const model = body.model ?? 'mock-model';
      const prompt = [...(body.messages ?? [])].reverse().find((m) => m.role === 'user')?.content ?? '';
      const send = (text: string, status = 200): void => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(text);
      };
      if (prompt.includes('[mock:http_error]')) return send('{"error":{"message":"upstream failure"}}', 500);
      if (prompt.includes('[mock:malformed]')) return send('{"choices": [ this is not json');
      if (prompt.includes('[mock:no_choices]')) return send(JSON.stringify({ id: 'x', object: 'chat.completion', model }));
      if (prompt.includes('[mock:content_filter]')) return send(completion(null, 'content_filter', model));
      if (prompt.includes('[mock:length]')) return send(completion(answerFor(prompt).slice(0, 40), 'length', model));
      if (prompt.includes('[mock:oversized]')) return send(completion('A'.repeat(options.oversizedBytes ?? 2_097_152), 'stop', model));
      return send(completion(answerFor(prompt), 'stop', model));
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', () => resolve());
  });
  const address = server.address() as AddressInfo;
  return {
    baseUrl: `http://${address.address}:${address.port}/v1`,
    get requestCount() {
      return requestCount;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
