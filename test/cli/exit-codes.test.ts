import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, it } from 'node:test';
import { SVC_BIN, runSvc } from '../helpers/cli.ts';

// README: exit codes. 0 ok, 1 the request failed, 2 usage or local input
// error, 3 a verification found a problem.
describe('svc exit codes', () => {
  const usageErrors: Array<[string, string[]]> = [
    ['a missing required option', ['plan', '--kind', 'byte_object']],
    ['an unknown command', ['no-such-command']],
    ['an unknown option', ['--no-such-option']],
    ['a missing argument', ['manifest', 'get']],
  ];
  for (const [what, args] of usageErrors) {
    it(`exits 2 on ${what}`, async () => {
      const r = await runSvc(args);
      assert.equal(r.status, 2, r.stderr);
      assert.match(r.stderr, /error:/);
    });
  }

  it('exits 0 on --help', async () => {
    const r = await runSvc(['--help']);
    assert.equal(r.status, 0);
    assert.match(r.stdout, /Usage: svc/);
  });

  it('exits 1 when the server cannot be reached', async () => {
    const r = await runSvc(['manifest', 'get', 'mf_01J0000000000000000000000'], { SVC_URL: 'http://127.0.0.1:9' });
    assert.equal(r.status, 1, r.stderr);
  });
});

// The bins run on Node 24 even when an older system Node starts them: they
// re-run themselves on the `node` package's binary (bin/node-24.mjs).
describe('bins under an older Node', () => {
  const systemNode = '/usr/bin/node';
  const olderNode = existsSync(systemNode) ? systemNode : undefined;
  it('svc --help works when started by the system Node', { skip: olderNode === undefined ? 'no /usr/bin/node on this machine' : false }, async () => {
    const result = await new Promise<{ status: number | null; stdout: string }>((resolve, reject) => {
      const child = spawn(olderNode!, [SVC_BIN, '--help'], { stdio: ['ignore', 'pipe', 'pipe'] });
      let stdout = '';
      child.stdout.on('data', (d) => (stdout += d));
      child.on('error', reject);
      child.on('close', (status) => resolve({ status, stdout }));
    });
    assert.equal(result.status, 0);
    assert.match(result.stdout, /Usage: svc/);
  });
});
