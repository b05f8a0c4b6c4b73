import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { SvcError } from '../../errors.ts';
import { OpenAICompatibleClient } from './openai-compatible-client.ts';
import type { ProviderConfig } from './provider-config.ts';

/** A tiny upstream whose behaviour is chosen by path. */
function upstream(): http.Server {
  return http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      switch (req.url) {
        case '/v1/ok':
          res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ auth: req.headers.authorization ?? null, ok: true }));
          return;
        case '/v1/limited':
          res.writeHead(429, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { type: 'rate_limit', code: 'slow_down', message: 'echoes the prompt' } }));
          return;
        case '/v1/hang':
          return; // never answers
        case '/v1/stream':
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('data: {"n":1}\n\n: comment\n\ndata: {"n":2}\n\n');
          res.end('data: [DONE]\n\n');
          return;
        case '/v1/stream-stall':
          res.writeHead(200, { 'content-type': 'text/event-stream' });
          res.write('data: {"n":1}\n\n'); // then silence
          return;
        default:
          res.writeHead(404).end();
      }
    });
  });
}

// request_ms leaves room for a loaded CI machine (a first request took ~500 ms at load 15); the hang test still bounds it under 2 s.
function provider(url: string, extra: Partial<ProviderConfig> = {}): ProviderConfig {
  return { name: 'up', base_url: url, models: [{ id: 'm', size_class: 'small' }], timeouts: { request_ms: 1000, connect_ms: 1000, stream_idle_ms: 150 }, ...extra };
}

describe('OpenAI-compatible client (undici pool)', () => {
  let server: http.Server;
  let url: string;
  let client: OpenAICompatibleClient;
  before(async () => {
    server = upstream();
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
    client = new OpenAICompatibleClient(provider(url, { api_key_env: 'UP_KEY' }), { UP_KEY: 'sk-test' });
  });
  after(async () => {
    await client.close();
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  });

  test('a 2xx JSON answer is parsed and the key from the environment is sent as a bearer token', async () => {
    assert.deepEqual(await client.postJson('/ok', { a: 1 }), { auth: 'Bearer sk-test', ok: true });
  });

  test('an HTTP error is model_route_failed with the status and retryability, without the upstream message', async () => {
    await assert.rejects(client.postJson('/limited', {}), (e: SvcError) => {
      assert.equal(e.code, 'model_route_failed');
      assert.equal(e.retryable, true);
      assert.deepEqual([e.details?.upstream_status, e.details?.upstream_code], [429, 'slow_down']);
      assert.doesNotMatch(e.message, /echoes the prompt/);
      return true;
    });
  });

  test('an upstream that never answers is backend_timeout after request_ms', async () => {
    const t0 = performance.now();
    await assert.rejects(client.postJson('/hang', {}), (e: SvcError) => e.code === 'backend_timeout' && e.details?.phase === 'request');
    assert.ok(performance.now() - t0 < 2000);
  });

  test('a stream yields every data payload up to [DONE]', async () => {
    const got: unknown[] = [];
    for await (const x of client.postStream('/stream', {})) got.push(x);
    assert.deepEqual(got, [{ n: 1 }, { n: 2 }]);
  });

  test('a stream that goes silent is backend_timeout (stream_idle) after what it already sent', async () => {
    const got: unknown[] = [];
    await assert.rejects(
      (async () => {
        for await (const x of client.postStream('/stream-stall', {})) got.push(x);
      })(),
      (e: SvcError) => e.code === 'backend_timeout' && e.details?.phase === 'stream_idle',
    );
    assert.deepEqual(got, [{ n: 1 }]);
  });

  test('an unreachable upstream is a retryable model_route_failed', async () => {
    const closed = new OpenAICompatibleClient(provider('http://127.0.0.1:9/v1'));
    try {
      await assert.rejects(closed.postJson('/ok', {}), (e: SvcError) => e.code === 'model_route_failed' && e.retryable);
    } finally {
      await closed.close();
    }
  });

  test('a key variable that is not set is a non-retryable model_route_failed naming the variable', async () => {
    const keyless = new OpenAICompatibleClient(provider(url, { api_key_env: 'MISSING_KEY' }), {});
    try {
      await assert.rejects(keyless.postJson('/ok', {}), (e: SvcError) => e instanceof SvcError && !e.retryable && /MISSING_KEY/.test(e.message));
    } finally {
      await keyless.close();
    }
  });
});
