import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Command } from 'commander';
import { parseCliArgs } from './cli-parse.ts';

const program = () => new Command('tool').requiredOption('--file <path>').configureOutput({ writeOut: () => undefined, writeErr: () => undefined });

test('a usage error stops with exit code 2, help with 0, good arguments go on', () => {
  const quiet = (p: Command) => {
    p.exitOverride().configureOutput({ writeOut: () => undefined, writeErr: () => undefined });
    return p;
  };
  assert.equal(parseCliArgs(quiet(program()), ['--nope']), 2);
  assert.equal(parseCliArgs(quiet(program()), []), 2);
  const helped = quiet(program());
  assert.equal(parseCliArgs(helped, ['--help']), 0);
  const ok = quiet(program());
  assert.equal(parseCliArgs(ok, ['--file', 'x']), undefined);
  assert.equal(ok.opts().file, 'x');
});
