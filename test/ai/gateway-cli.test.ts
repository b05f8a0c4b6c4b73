import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { after, before, test } from 'node:test';
import { type MockOpenAI, startMockOpenAI } from '../fixtures/mock-openai/mock-openai-server.ts';

let mock: MockOpenAI;
before(async () => {
  mock = await startMockOpenAI({ models: ['mock-small', 'mock-large'] });
});
after(async () => mock.close());

function gatewayAi(provider: string, models: unknown[]) {
  const env = { ...process.env, SVC_PROVIDERS_JSON: JSON.stringify([{ name: 'mock', base_url: mock.url, api_key_env: 'MOCK_KEY', models, fallback_model: 'mock-large' }]), MOCK_KEY: 'sk-cli-secret' };
  return spawnSync(process.execPath, ['bin/svc.mjs', 'gateway', 'ai', '--provider', provider, '--json'], { env, encoding: 'utf8', timeout: 30_000 });
}

test('svc gateway ai checks the provider, makes a verified call and prints the routing table without the key', async () => {
  // spawnSync blocks this process, so the in-process mock cannot answer: run the CLI asynchronously instead.
  const { spawn } = await import('node:child_process');
  const env = { ...process.env, SVC_PROVIDERS_JSON: JSON.stringify([{ name: 'mock', base_url: mock.url, api_key_env: 'MOCK_KEY', models: [{ id: 'mock-small', size_class: 'small' }, { id: 'mock-large', size_class: 'large' }], fallback_model: 'mock-large' }]), MOCK_KEY: 'sk-cli-secret' };
  const child = spawn(process.execPath, ['bin/svc.mjs', 'gateway', 'ai', '--provider', 'mock', '--json'], { env });
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
  assert.equal(code, 0, out);
  const report = JSON.parse(out);
  assert.equal(report.reachable, true);
  assert.equal(report.verified_call.passed, true);
  assert.deepEqual(report.routing_table, { auto_small: 'mock-small', auto_large: 'mock-large', fallback_model: 'mock-large', embeddings: null });
  assert.equal(out.includes('sk-cli-secret'), false);
  assert.equal(mock.calls.at(-1)?.authorization, 'Bearer sk-cli-secret');
});

test('svc gateway ai names the configured providers when the name is unknown', () => {
  const r = gatewayAi('nope', [{ id: 'mock-small', size_class: 'small' }, { id: 'mock-large', size_class: 'large' }]);
  assert.notEqual(r.status, 0);
  assert.match(r.stderr + r.stdout, /no provider named 'nope'.*mock/);
});
