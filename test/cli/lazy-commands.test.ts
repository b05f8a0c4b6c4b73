import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import path from 'node:path';
import { describe, it } from 'node:test';
import { commandWord } from '../../src/svc/cli/command-word.ts';
import { SVC_BIN, runSvc } from '../helpers/cli.ts';

/** The Node builtins a real `svc` process loaded (printed at exit by a preloaded fixture). */
async function builtinsLoadedBy(args: string[]): Promise<string[]> {
  const preload = path.resolve(import.meta.dirname, '../fixtures/cli/print-loaded-builtins.mjs');
  const child = spawn(process.execPath, ['--import', preload, SVC_BIN, ...args], {
    // Nothing listens on port 9: the command fails fast after loading everything it needs.
    env: { ...process.env, SVC_URL: 'http://127.0.0.1:9', SVC_API_KEY: 'cli-test-key-0123456789abcdef' },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  await new Promise((resolve) => child.on('close', resolve));
  const line = /loaded-builtins (\[.*\])/.exec(stderr);
  assert.ok(line, stderr);
  return JSON.parse(line[1]!) as string[];
}

// main.ts imports only the module of the command being run (CLI start-up);
// help and unknown words still see every command.
describe('svc loads only the command it runs', () => {
  it('finds the command word after the global options', () => {
    assert.equal(commandWord(['--json', '--url', 'http://x', 'execute', '--file', 'f']), 'execute');
    assert.equal(commandWord(['--url=http://x', 'manifest', 'get', 'id']), 'manifest');
    assert.equal(commandWord(['--json']), undefined);
  });

  it('still lists every command in the top-level help', async () => {
    const r = await runSvc(['--help']);
    assert.equal(r.status, 0, r.stderr);
    for (const name of ['init', 'serve', 'plan', 'work-unit', 'execute', 'manifest', 'ledger', 'logs', 'policy', 'gateway', 'report', 'platform', 'scheduler', 'cache', 'benchmark', 'restore-test', 'gc', 'adapter', 'plugin']) {
      assert.match(r.stdout, new RegExp(`\\n  ${name}\\b`), name);
    }
  });

  it('keeps `work-unit execute` (registered by the execute group) under either name of the group', async () => {
    for (const group of ['work-unit', 'work-units']) {
      const r = await runSvc([group, '--help']);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stdout, /\n  execute\b/);
    }
  });

  it('runs a group registered beside another (`logs` lives with `ledger`)', async () => {
    const r = await runSvc(['logs', '--help']);
    assert.equal(r.status, 0, r.stderr);
    assert.match(r.stdout, /Usage: svc logs/);
  });

  it('a byte transfer loads neither fetch (undici) nor HTTP/2, zlib or TLS for a plain http URL', async () => {
    // An ESM `import http from 'node:http'` would load them all through node:http's lazy getters (byte-transfer.ts).
    for (const args of [['manifest', 'rehydrate', 'mf_x', '--out', path.join(import.meta.dirname, 'never-written')], ['execute', '--kind', 'byte_object', '--file', SVC_BIN]]) {
      const loaded = await builtinsLoadedBy(args);
      assert.ok(loaded.includes('http'), `${args[0]}: uses node:http`);
      for (const heavy of ['internal/deps/undici/undici', 'http2', 'zlib', 'tls']) assert.equal(loaded.includes(heavy), false, `${args[0]} loaded ${heavy}`);
    }
  });
});
