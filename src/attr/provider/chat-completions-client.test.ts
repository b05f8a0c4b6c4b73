import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sha256Hex } from '../../core/hashing.ts';
import { AttrError } from '../errors.ts';
import type { ProviderRoute } from '../config/service-config.ts';
import { completeChat, type Fetch } from './chat-completions-client.ts';

const route: ProviderRoute = { providerId: 'p', baseUrl: 'http://provider.test/v1', model: 'm', apiKeyEnv: 'P_KEY', timeoutMs: 1_000, maxOutputBytes: 100, maxResponseBytes: 2_000 };
const env = { P_KEY: 'sk-test-secret' };
const messages = [{ role: 'user' as const, content: 'q' }];

function fakeFetch(body: string, status = 200, seen: { url?: string; auth?: string } = {}): Fetch {
  return (async (url: string | URL | Request, init?: RequestInit) => {
    seen.url = String(url);
    seen.auth = new Headers(init?.headers).get('authorization') ?? undefined;
    return new Response(body, { status, headers: { 'content-type': 'application/json' } });
  }) as Fetch;
}

const completion = (content: unknown, finish: unknown = 'stop', extra: object = {}) => JSON.stringify({ model: 'm-2', choices: [{ message: { content, ...extra }, finish_reason: finish }] });

async function codeOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
    return 'resolved';
  } catch (err) {
    assert.ok(err instanceof AttrError);
    assert.ok(!err.message.includes(env.P_KEY) && !JSON.stringify(err.details).includes(env.P_KEY), 'the key never appears in an error');
    return err.code;
  }
}

test('a good completion returns the answer, the reported model and the hash of the raw body, sending the key as a bearer token', async () => {
  const raw = completion('Bees forage.');
  const seen: { url?: string; auth?: string } = {};
  const result = await completeChat(route, messages, env, fakeFetch(raw, 200, seen));
  assert.deepEqual(result, { content: 'Bees forage.', finishReason: 'stop', model: 'm-2', responseSha256: sha256Hex(raw) });
  assert.equal(seen.url, 'http://provider.test/v1/chat/completions');
  assert.equal(seen.auth, 'Bearer sk-test-secret');
});

test('a missing key fails closed without calling the provider', async () => {
  let called = false;
  const fetchSpy = (async () => {
    called = true;
    return new Response('{}');
  }) as unknown as Fetch;
  assert.equal(await codeOf(completeChat(route, messages, {}, fetchSpy)), 'provider_key_missing');
  assert.equal(called, false);
});

const CASES: Array<[string, string, number, string]> = [
  ['a content filter stop', completion(null, 'content_filter'), 200, 'provider_filtered'],
  ['a refusal', completion(null, 'stop', { refusal: 'cannot help' }), 200, 'provider_filtered'],
  ['a body that is not JSON', '{"choices": [', 200, 'provider_malformed'],
  ['no choices', JSON.stringify({ choices: [] }), 200, 'provider_malformed'],
  ['empty content', completion('  '), 200, 'provider_malformed'],
  ['no finish_reason', completion('ok', null), 200, 'provider_malformed'],
  ['a length stop', completion('partial', 'length'), 200, 'provider_output_too_large'],
  ['an answer over max_output_bytes', completion('x'.repeat(101)), 200, 'provider_output_too_large'],
  ['a body over max_response_bytes', completion('x'.repeat(50), 'stop', { pad: 'y'.repeat(3_000) }), 200, 'provider_output_too_large'],
  ['an HTTP error', '{"error":{}}', 500, 'provider_failed'],
];

for (const [what, body, status, code] of CASES) {
  test(`${what} fails closed as ${code}`, async () => {
    assert.equal(await codeOf(completeChat(route, messages, env, fakeFetch(body, status))), code);
  });
}

test('an unreachable provider fails closed as provider_failed', async () => {
  const failing = (async () => {
    throw new TypeError('fetch failed');
  }) as unknown as Fetch;
  assert.equal(await codeOf(completeChat(route, messages, env, failing)), 'provider_failed');
});
