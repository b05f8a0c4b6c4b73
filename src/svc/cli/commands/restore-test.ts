/**
 * `svc restore-test run --kind <kind>`: one rehydration restore test on the
 * server (POST /v1/admin/restore-tests, docs/restore-tests.md). Prints the
 * result; exits 3 when the test failed (a verification found a problem), 0
 * when it passed or is not applicable.
 */
import { type Command, InvalidArgumentError, Option } from 'commander';
import { RESTORE_TEST_KINDS, type RestoreTestResult } from '../../restore-tests/restore-test.ts';
import { clientFor, EXIT, run } from '../runtime.ts';

function integer(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

export function register(program: Command): void {
  const restore = program.command('restore-test').description('rehydration restore tests (docs/restore-tests.md)');
  restore
    .command('run')
    .description('run one restore test now; exit 3 when it failed')
    .addOption(new Option('--kind <kind>').choices([...RESTORE_TEST_KINDS]).makeOptionMandatory())
    .option('--tenant <tenant>', 'only this tenant (default: every tenant the key may see)')
    .option('--sample-size <n>', 'sampled_exact: manifests to restore', integer)
    .option('--prefix <prefix>', 'critical_full: logical_ref prefix of a critical dataset (repeatable)', (v: string, prev: string[] = []) => [...prev, v])
    .action((o: { kind: string; tenant?: string; sampleSize?: number; prefix?: string[] }, cmd: Command) => {
      let failed = false;
      return run(
        cmd,
        async (g) => {
          const body = { kind: o.kind, ...(o.tenant ? { tenant: o.tenant } : {}), ...(o.sampleSize !== undefined ? { sample_size: o.sampleSize } : {}), ...(o.prefix ? { prefixes: o.prefix } : {}) };
          const r = await clientFor(g).json<{ result: RestoreTestResult }>('POST', '/v1/admin/restore-tests', body);
          failed = r.result.status === 'failed';
          return r;
        },
        () => (failed ? EXIT.verification : EXIT.ok),
      );
    });
}
