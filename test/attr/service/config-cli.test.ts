import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { EXAMPLE_CORPUS, publishedValidator, runBin } from './run-bin.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'attr-config-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const reportErrors = publishedValidator('config/schemas/attr-service-config-verification.v1.schema.json');
const configErrors = publishedValidator('config/schemas/attr-service-config.v1.schema.json');

async function create(name: string, extra: string[] = []) {
  const output = path.join(dir, name);
  const result = await runBin('attr-service-config', [
    'create', '--template', 'default', '--corpus', EXAMPLE_CORPUS,
    '--audit-log-path', path.join(dir, `${name}.audit.jsonl`), '--artifact-dir', path.join(dir, `${name}.artifacts`), '--output', output, ...extra,
  ]);
  return { output, result };
}

test('create writes a config that conforms to the published schema and validates with exit 0', async () => {
  const { output, result } = await create('good.json');
  assert.equal(result.code, 0, result.stderr);
  assert.deepEqual(reportErrors(result.json), []);
  assert.equal(result.json.valid, true);
  const written = JSON.parse(readFileSync(output, 'utf8'));
  assert.deepEqual(configErrors(written), []);
  const again = await runBin('attr-service-config', ['validate', '--config', output]);
  assert.equal(again.code, 0);
  assert.equal(again.json.config_sha256, result.json.config_sha256);
  assert.ok(again.json.checks.some((c: { name: string; status: string }) => c.name === 'corpus_loads' && c.status === 'passed'));
});

test('create refuses to overwrite an existing file without --force', async () => {
  await create('twice.json');
  const { result } = await create('twice.json');
  assert.equal(result.code, 2);
  assert.match(result.stderr, /file exists/);
});

test('validate rejects an unknown key and names its path', async () => {
  const { output } = await create('typo.json');
  const doc = JSON.parse(readFileSync(output, 'utf8'));
  doc.limits.max_promt_bytes = 10;
  writeFileSync(output, JSON.stringify(doc));
  const result = await runBin('attr-service-config', ['validate', '--config', output]);
  assert.equal(result.code, 1);
  assert.deepEqual(reportErrors(result.json), []);
  assert.equal(result.json.valid, false);
  assert.ok(result.json.issues.some((i: { path: string; message: string }) => i.path === '/limits/max_promt_bytes' && i.message === 'unknown key'), JSON.stringify(result.json.issues));
});

test('validate rejects a provider entry that carries a key instead of naming its variable', async () => {
  const { output } = await create('provider-key.json');
  const doc = JSON.parse(readFileSync(output, 'utf8'));
  doc.providers = [{ provider_id: 'p', base_url: 'http://127.0.0.1:1/v1', model: 'm', api_key_env: 'sk-live-abc123' }];
  writeFileSync(output, JSON.stringify(doc));
  const result = await runBin('attr-service-config', ['validate', '--config', output]);
  assert.equal(result.code, 1);
  assert.ok(result.json.issues.some((i: { path: string }) => i.path === '/providers/0/api_key_env'));
});

test('validate rejects duplicate provider ids', async () => {
  const { output } = await create('dup.json');
  const doc = JSON.parse(readFileSync(output, 'utf8'));
  const route = { provider_id: 'p', base_url: 'http://127.0.0.1:1/v1', model: 'm', api_key_env: 'P_KEY' };
  doc.providers = [route, { ...route }];
  writeFileSync(output, JSON.stringify(doc));
  const result = await runBin('attr-service-config', ['validate', '--config', output]);
  assert.equal(result.code, 1);
  assert.ok(result.json.issues.some((i: { path: string; message: string }) => i.path === '/providers/1/provider_id' && /duplicate/.test(i.message)));
});

test('validate fails a config whose corpus does not load', async () => {
  const { output } = await create('missing-corpus.json');
  const doc = JSON.parse(readFileSync(output, 'utf8'));
  doc.corpus_path = path.join(dir, 'no-such-corpus.jsonl');
  writeFileSync(output, JSON.stringify(doc));
  const result = await runBin('attr-service-config', ['validate', '--config', output]);
  assert.equal(result.code, 1);
  const check = result.json.checks.find((c: { name: string }) => c.name === 'corpus_loads');
  assert.equal(check.status, 'failed');
  assert.match(check.detail, /corpus_unreadable/);
});

test('validate reports a missing token digest and missing provider keys as warnings, not failures', async () => {
  const { output } = await create('warn.json');
  const doc = JSON.parse(readFileSync(output, 'utf8'));
  doc.providers = [{ provider_id: 'p', base_url: 'http://127.0.0.1:1/v1', model: 'm', api_key_env: 'ATTR_TEST_UNSET_KEY' }];
  writeFileSync(output, JSON.stringify(doc));
  const result = await runBin('attr-service-config', ['validate', '--config', output]);
  assert.equal(result.code, 0);
  const statuses = Object.fromEntries(result.json.checks.map((c: { name: string; status: string }) => [c.name, c.status]));
  assert.equal(statuses.token_digest_env, 'warning');
  assert.equal(statuses['provider_key:p'], 'warning');
});

test('validate exits 1 with an issue for a file that is not JSON', async () => {
  const file = path.join(dir, 'broken.json');
  writeFileSync(file, '{');
  const result = await runBin('attr-service-config', ['validate', '--config', file]);
  assert.equal(result.code, 1);
  assert.equal(result.json.issues[0].message, 'invalid JSON');
});
