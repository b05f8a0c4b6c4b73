import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { commandWord } from '../../src/svc/cli/command-word.ts';
import { runSvc } from '../helpers/cli.ts';

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
});
