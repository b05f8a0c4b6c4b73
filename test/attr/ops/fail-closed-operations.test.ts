import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { configFromTemplate } from '../../../src/attr/config/config-template.ts';
import { parseCorpus } from '../../../src/attr/corpus/load-corpus.ts';
import { sealCorpusText } from '../../../src/attr/corpus/seal-corpus.ts';
import { SERVICE_BIN, startServiceProcess } from '../../../src/attr/smoke/service-process.ts';
import { EXAMPLE_CORPUS, runBin } from '../service/run-bin.ts';

const dir = mkdtempSync(path.join(os.tmpdir(), 'attr-ops-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function writeConfig(name: string, edit: (d: ReturnType<typeof configFromTemplate>) => void = () => undefined): string {
  const base = path.join(dir, name);
  mkdirSync(base, { recursive: true });
  const configPath = path.join(base, 'attr-service.json');
  const document = configFromTemplate('default', { corpusPath: EXAMPLE_CORPUS, auditLogPath: path.join(base, 'audit/audit.jsonl'), artifactDir: path.join(base, 'artifacts'), outputPath: configPath });
  document.service.port = 0;
  edit(document);
  writeFileSync(configPath, JSON.stringify(document));
  return configPath;
}

interface Started {
  code: number | null;
  url: string | undefined;
  stderr: string;
  stop(): Promise<void>;
}

const token = randomBytes(16).toString('hex');
const tokenEnv = { PATH: process.env.PATH ?? '', ATTR_SERVICE_LOG_LEVEL: 'warn', ATTR_SERVICE_TOKEN_SHA256: createHash('sha256').update(token).digest('hex') };

/** Starts attr-service on `configPath`; resolves when it listens or exits. */
function start(configPath: string): Promise<Started> {
  const child = spawn(process.execPath, [SERVICE_BIN, '--config', configPath], { env: tokenEnv, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (s: string) => (stderr += s));
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((r) => child.once('exit', r));
    child.kill('SIGTERM');
    await exited;
  };
  return new Promise((resolve) => {
    createInterface({ input: child.stdout }).on('line', (line) => {
      const event = JSON.parse(line) as { event?: string; url?: string };
      if (event.event === 'listening') resolve({ code: null, url: event.url, get stderr() { return stderr; }, stop });
    });
    child.once('exit', (code) => resolve({ code, url: undefined, stderr, stop }));
  });
}

function snapshot(configPath: string): Record<string, string> {
  const base = path.dirname(configPath);
  const out: Record<string, string> = {};
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else out[path.relative(base, p)] = createHash('sha256').update(readFileSync(p)).digest('hex');
    }
  };
  walk(base);
  return out;
}

test('a second attr-service on the same config exits 3 with a clear message and changes nothing', async () => {
  const configPath = writeConfig('double');
  const first = await start(configPath);
  assert.ok(first.url, first.stderr);
  try {
    const attributed = await fetch(`${first.url}/v1/attribute`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ prompt: 'How far do honeybees forage?', gross_revenue: '1.00' }) });
    assert.equal(attributed.status, 200);
    const before = snapshot(configPath);
    const second = await start(configPath);
    assert.equal(second.code, 3, second.stderr);
    assert.match(second.stderr, /state is locked by another attr-service \(pid \d+/);
    assert.ok(!/\n\s+at /.test(second.stderr), 'no stack trace');
    assert.deepEqual(snapshot(configPath), before, 'artifacts, audit log and lock files untouched');
    const ready = await fetch(`${first.url}/readyz`);
    assert.equal(ready.status, 200, 'the first instance stays ready');
  } finally {
    await first.stop();
  }
  assert.ok(!existsSync(path.join(path.dirname(configPath), 'audit/audit.jsonl.lock')), 'a clean stop releases the lock');
  const again = await start(configPath);
  assert.ok(again.url, `restart after a clean stop works: ${again.stderr}`);
  await again.stop();
});

test('two attr-service processes started at once on one config: exactly one runs', async () => {
  const configPath = writeConfig('concurrent');
  const results = await Promise.all([start(configPath), start(configPath), start(configPath)]);
  try {
    const running = results.filter((r) => r.url !== undefined);
    assert.equal(running.length, 1, results.map((r) => r.stderr).join('\n'));
    assert.deepEqual(results.filter((r) => r.url === undefined).map((r) => r.code), [3, 3]);
    assert.equal((await fetch(`${running[0]!.url}/readyz`)).status, 200);
  } finally {
    await Promise.all(results.map((r) => r.stop()));
  }
});

test('a stale lock left by a killed instance is taken over', async () => {
  const configPath = writeConfig('stale');
  const first = await start(configPath);
  assert.ok(first.url);
  // Simulate a crash: the lock file stays behind with a pid that no longer runs.
  const lockFile = path.join(path.dirname(configPath), 'audit/audit.jsonl.lock');
  await first.stop();
  writeFileSync(lockFile, JSON.stringify({ pid: 2 ** 22 + 12345, config_path: configPath, locked_at: new Date().toISOString() }));
  const next = await start(configPath);
  assert.ok(next.url, next.stderr);
  await next.stop();
});

test('an audit_log_path that is a directory is a config error: exit 2, clear message, no stack trace', async () => {
  const configPath = writeConfig('auditdir', (d) => void (d.audit_log_path = 'audit-is-a-dir'));
  mkdirSync(path.join(path.dirname(configPath), 'audit-is-a-dir'));
  const result = await runBin('attr-service', ['--config', configPath, '--port', '0'], { env: tokenEnv });
  assert.equal(result.code, 2, result.stderr);
  assert.match(result.stderr, /audit_log_path .*audit-is-a-dir is a directory, not a file/);
  assert.ok(!/\n\s+at /.test(result.stderr));
});

test('attr-service-config create --output into a missing directory creates it', async () => {
  const output = path.join(dir, 'not/yet/there/attr-service.json');
  const result = await runBin('attr-service-config', ['create', '--template', 'default', '--corpus', EXAMPLE_CORPUS, '--audit-log-path', path.join(dir, 'x.jsonl'), '--artifact-dir', path.join(dir, 'x-art'), '--output', output]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(JSON.parse(readFileSync(output, 'utf8')).schema, 'attr-service-config/v1');
});

test('a corpus source with a javascript:, data: or file: URI is refused; http(s) loads', () => {
  const record = (uri: string) =>
    JSON.stringify({
      schema: 'attr-corpus-source/v1', source_id: 's', work_id: 'w', title: 't', uri,
      rights_holder: null, royalty_terms: { license: 'l', royalty_eligible: false }, published_at: null, updated_at: '2024-01-02',
      chunks: [{ chunk_id: 'c1', text: 'Some text.' }], content_sha256: '0'.repeat(64),
    });
  for (const uri of ['javascript://%0aalert(1)', 'javascript:alert(1)', 'data://text/html,x', 'file:///etc/passwd', 'ftp://example.org/x', 'https:///nohost']) {
    assert.throws(() => parseCorpus(sealCorpusText(record(uri))), /line 1: \/uri/, uri);
  }
  assert.equal(parseCorpus(sealCorpusText(record('https://example.org/a?b=1#c'))).sources.length, 1);
  assert.equal(parseCorpus(sealCorpusText(record('http://example.org'))).sources.length, 1);
});

test('a trust store made invalid while running turns readyz 503 and refuses attribution', async () => {
  const storePath = path.join(dir, 'trust-store.json');
  const pem = generateKeyPairSync('ed25519').publicKey.export({ type: 'spki', format: 'pem' }).toString();
  writeFileSync(storePath, JSON.stringify({ schema: 'attr-deployment-trust-store/v1', keys: [{ key_id: 'ops', issuer: 'Ops', public_key_pem: pem, allowed_attestation_types: ['audit_log_integrity'] }] }));
  const svc = await startServiceProcess({ corpusPath: EXAMPLE_CORPUS, configure: (d) => void (d.trust_store_path = storePath) });
  try {
    writeFileSync(storePath, '{"schema":"attr-deployment-trust-store/v1","keys":[]}');
    const ready = await svc.request('/readyz');
    assert.equal(ready.status, 503);
    const body = (await ready.json()) as { checks: Array<{ name: string; status: string; detail: string }> };
    const check = body.checks.find((c) => c.name === 'trust_store')!;
    assert.equal(check.status, 'failed');
    assert.match(check.detail, /no longer validates/);
    const res = await svc.request('/v1/attribute', { auth: true, json: { prompt: 'How far do honeybees forage?', gross_revenue: '1.00' } });
    assert.equal(res.status, 503);
  } finally {
    await svc.stop();
  }
});
