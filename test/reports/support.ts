/**
 * A seeded svc for report, alert and dashboard tests: two tenants' byte
 * objects (with a duplicate so dedupe is measured) and AI requests through
 * the mock upstream (a miss, then an exact hit). Adds an `acme`-bound key
 * that may read reports.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import type { EngineName } from '../helpers/engines.ts';
import { API_KEYS_JSON, KEYS, type TestServer, startTestServer } from '../helpers/server.ts';
import { type MockOpenAI, startMockOpenAI } from '../fixtures/mock-openai/mock-openai-server.ts';

export const ACME_AUDITOR = 'acme-auditor-key-0123456789abcdef';

export function providersJson(url: string): string {
  return JSON.stringify([{ name: 'mock', base_url: url, models: [{ id: 'mock-small', size_class: 'small' }, { id: 'mock-large', size_class: 'large' }], timeouts: { request_ms: 3000 } }]);
}

export interface Seeded {
  svc: TestServer;
  mock: MockOpenAI;
  close(): Promise<void>;
}

export async function startSeeded(engine: EngineName, env: Record<string, string> = {}): Promise<Seeded> {
  const mock = await startMockOpenAI();
  const keys = { ...JSON.parse(API_KEYS_JSON), [ACME_AUDITOR]: { actor: 'acme-auditor', tenant: 'acme', roles: ['auditor'] } };
  const svc = await startTestServer({ engine, env: { SVC_PROVIDERS_JSON: providersJson(mock.url), SVC_API_KEYS_JSON: JSON.stringify(keys), ...env } });
  return { svc, mock, close: async () => { await svc.close(); await mock.close(); } };
}

export async function put(svc: TestServer, key: string, bucket: string, name: string, data: Buffer): Promise<void> {
  const r = await svc.call('POST', '/v1/s3/objects', { key, body: { bucket, key: name, body_base64: data.toString('base64') } });
  assert.equal(r.status, 201, await r.clone().text());
}

export async function chat(svc: TestServer, key: string, content: string): Promise<Response> {
  const r = await svc.call('POST', '/v1/chat/completions', { key, body: { model: 'mock-small', messages: [{ role: 'user', content }] } });
  assert.equal(r.status, 200, await r.clone().text());
  await r.json();
  return r;
}

/** The standard seed: acme has a duplicated object and two identical chats; globex one object and no AI. */
export async function seed(svc: TestServer): Promise<void> {
  const blob = randomBytes(300_000);
  await put(svc, KEYS.acmeWriter, 'data', 'a.bin', blob);
  await put(svc, KEYS.acmeWriter, 'data', 'a-copy.bin', blob);
  await put(svc, KEYS.acmeWriter, 'logs', 'app.log', Buffer.from('INFO request ok\n'.repeat(5000)));
  await put(svc, KEYS.globexWriter, 'data', 'g.bin', randomBytes(50_000));
  await chat(svc, KEYS.acmeWriter, 'What is a ledger?');
  await chat(svc, KEYS.acmeWriter, 'What is a ledger?');
}
