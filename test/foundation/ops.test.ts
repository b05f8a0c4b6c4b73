/**
 * Operations: `npm start` comes up fast, configuration is validated with
 * paths, logs never contain payload secrets, the CLI talks to a real server.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadConfig } from '../../src/svc/config/load.ts';
import { runSvc } from '../helpers/cli.ts';
import { ADMIN_KEY, KEYS, type TestServer, startTestServer } from '../helpers/server.ts';

const ROOT = path.resolve(import.meta.dirname, '../..');
const SVC = path.join(ROOT, 'bin/svc.mjs');

// A bound on "it comes up", not a start-time target: 10 s failed at load average 20 on a shared 2-core machine.
const START_BOUND_MS = 30_000;

test('npm start serves /healthz within 30 s on a fresh state dir and prints where the dev key is', async () => {
  const stateDir = mkdtempSync(path.join(os.tmpdir(), 'svc-start-'));
  const started = Date.now();
  const child = spawn('npm', ['start', '--silent', '--', '--port', '0'], {
    cwd: ROOT,
    env: { ...process.env, SVC_STATE_DIR: stateDir, SVC_LOCAL_API_KEY: '', SVC_API_KEYS_JSON: '', SVC_DATABASE_URL: '', SVC_GRPC_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group, so the server under npm stops with it
  });
  try {
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no listening line within ${START_BOUND_MS} ms: ${out}`)), START_BOUND_MS);
      child.stdout.on('data', (d) => {
        out += d;
        const m = /listening on (http:\/\/\S+)/.exec(out);
        if (m && out.includes('development API key')) {
          clearTimeout(timer);
          resolve(m[1]!);
        }
      });
      child.on('exit', (code) => reject(new Error(`exited ${code}: ${out}`)));
    });
    const res = await fetch(`${url}/healthz`);
    assert.equal(res.status, 200);
    assert.ok(Date.now() - started < START_BOUND_MS);
    const keyFile = path.join(stateDir, 'dev-api-key');
    assert.ok(out.includes(keyFile));
    const key = readFileSync(keyFile, 'utf8').trim();
    assert.equal((await fetch(`${url}/v1/plans`, { headers: { 'X-API-Key': key } })).status, 200);
  } finally {
    const exited = new Promise((r) => child.once('exit', r));
    process.kill(-child.pid!, 'SIGTERM');
    await exited;
    rmSync(stateDir, { recursive: true, force: true });
  }
});

describe('configuration', () => {
  test('unknown keys are rejected with their path', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-cfg-'));
    const file = path.join(dir, 'config.yaml');
    writeFileSync(file, 'server:\n  prot: 1\nstorage:\n  dedupe_scope: tenant\nbogus: true\n');
    assert.throws(() => loadConfig({ file, env: {} }), (err: Error) => /\/server\/prot: unknown key/.test(err.message) && /\/bogus: unknown key/.test(err.message));
    rmSync(dir, { recursive: true, force: true });
  });

  test('environment variables override the file and are validated', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-cfg-'));
    const file = path.join(dir, 'config.yaml');
    writeFileSync(file, 'server:\n  port: 9000\n');
    assert.equal(loadConfig({ file, env: {} }).config.server.port, 9000);
    assert.equal(loadConfig({ file, env: { SVC_PORT: '9100' } }).config.server.port, 9100);
    assert.throws(() => loadConfig({ file, env: { SVC_PORT: 'eighty' } }), /SVC_PORT must be a non-negative integer/);
    assert.throws(() => loadConfig({ file, env: { SVC_DEDUPE_SCOPE: 'everyone' } }), /dedupe_scope/);
    rmSync(dir, { recursive: true, force: true });
  });

  test('svc init writes a config the loader accepts and a private dev key', () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-init-'));
    const r = spawnSync(process.execPath, [SVC, 'init', '--state-dir', dir, '--json'], { encoding: 'utf8', env: { ...process.env, SVC_LOCAL_API_KEY: '', SVC_API_KEYS_JSON: '' } });
    assert.equal(r.status, 0, r.stderr);
    const out = JSON.parse(r.stdout);
    assert.equal(loadConfig({ file: out.config_file, env: {} }).config.state_dir, dir);
    assert.equal((readFileSync(out.dev_api_key_file, 'utf8').trim().length > 20), true);
    assert.equal(spawnSync(process.execPath, [SVC, 'init', '--state-dir', dir], { encoding: 'utf8' }).status, 2, 'refuses to overwrite');
    rmSync(dir, { recursive: true, force: true });
  });
});

describe('logs and CLI against a running server', () => {
  let s: TestServer;
  before(async () => {
    s = await startTestServer();
  });
  after(async () => s?.close());

  const cli = (args: string[], key = ADMIN_KEY) => runSvc([...args, '--json'], { SVC_URL: s.url, SVC_API_KEY: key });

  test('a secret in a payload, metadata or header never reaches the log file', async () => {
    const secret = 'sk-live-SECRET-7f3a9c';
    await s.call('POST', '/v1/work-units', { body: { kind: 'prompt_request', logical_ref: 'prompt://x', payload: { messages: [{ role: 'user', content: secret }] } } });
    await s.call('POST', '/v1/work-units', { body: { kind: 'byte_object', logical_ref: 's3://b/k', payload: { _svc_encoding: 'base64', data: `${Buffer.from(secret).toString('base64')}!` } } });
    await s.call('GET', '/v1/plans', { key: secret });
    s.app.log.info({ event_type: 'test.redaction', payload: { nested: [{ token: secret }] }, body: secret, prompt: secret }, 'redaction probe');
    await s.app.log.flush();
    const text = readFileSync(s.app.log.file!, 'utf8');
    assert.ok(text.includes('test.redaction'), 'the probe entry was written');
    assert.ok(text.includes('auth.rejected'), 'the rejected credential was logged (without the token)');
    assert.equal(text.includes(secret), false);
    assert.equal(text.includes(Buffer.from(secret).toString('base64')), false);
  });

  test('logs query returns redacted entries filtered by event type, newest last, within the limit', async () => {
    const res = (await (await s.call('POST', '/v1/logs/query', { body: { event_types: ['test.redaction'], limit: 5 } })).json()) as any;
    assert.equal(res.entries.length, 1);
    assert.equal(res.entries[0].payload, '[redacted]');
    assert.equal(res.entries[0].severity, 'info');
    const bad = await s.call('POST', '/v1/logs/query', { body: { limit: 100_000 } });
    assert.equal(bad.status, 400);
  });

  test('svc plan --json prints the API response and the plan is persisted', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'svc-cli-'));
    const file = path.join(dir, 'obj.txt');
    writeFileSync(file, 'hello from the cli\n'.repeat(100));
    const r = await cli(['plan', '--kind', 'byte_object', '--file', file, '--tenant', 'cli']);
    assert.equal(r.status, 0, r.stderr);
    const plan = JSON.parse(r.stdout);
    assert.match(plan.plan_id, /^pl_/);
    const wu = await cli(['work-unit', 'create', '--kind', 'byte_object', '--file', file, '--meta', 'owner=alice']);
    const created = JSON.parse(wu.stdout);
    assert.deepEqual(created.metadata, { owner: 'alice' });
    const planned = JSON.parse((await cli(['work-unit', 'plan', created.work_unit_id, '--mode', 'observe'])).stdout);
    assert.equal(planned.mode, 'observe');
    const events = JSON.parse((await cli(['ledger', 'query', '--tenant', 'cli', '--event-type', 'plan.created'])).stdout);
    assert.equal(events.events[0].payload.plan.plan_id, plan.plan_id);
    const verify = await cli(['ledger', 'verify']);
    assert.equal(verify.status, 0);
    assert.equal(JSON.parse(verify.stdout).ok, true);
    rmSync(dir, { recursive: true, force: true });
  });

  test('svc work-unit create --file - reads the payload from standard input, named by --logical-ref', async () => {
    const request = JSON.stringify({ messages: [{ role: 'user', content: 'from a pipe' }] });
    const r = await runSvc(['--json', 'work-unit', 'create', '--kind', 'prompt_request', '--file', '-', '--logical-ref', 'prompt://pipe/1'], { SVC_URL: s.url, SVC_API_KEY: ADMIN_KEY }, request);
    assert.equal(r.status, 0, r.stderr);
    const created = JSON.parse(r.stdout);
    assert.deepEqual([created.kind, created.logical_ref], ['prompt_request', 'prompt://pipe/1']);
    const unnamed = await runSvc(['work-unit', 'create', '--kind', 'prompt_request', '--file', '-'], { SVC_URL: s.url, SVC_API_KEY: ADMIN_KEY }, request);
    assert.notEqual(unnamed.status, 0);
    assert.match(unnamed.stderr, /--logical-ref/);
  });

  test('the CLI exits 1 with the error body when the server refuses', async () => {
    const r = await cli(['work-unit', 'get', 'wu_00000000000000000000000000'], KEYS.acmeReader);
    assert.equal(r.status, 1);
    assert.equal(JSON.parse(r.stdout).error.code, 'not_found');
  });
});
