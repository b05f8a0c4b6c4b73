/**
 * `svc platform matrix` and `svc platform validate --target <t>`: both
 * offline (no server, no credentials). `validate` checks the target against
 * the configuration (`--config`, SVC_* variables) and exits 3 naming every
 * failed required check.
 */
import type { Command } from 'commander';
import { loadConfig } from '../../config/load.ts';
import { capabilityMatrix } from '../../platforms/capability-matrix.ts';
import type { TargetValidation } from '../../platforms/platform-check.ts';
import { TARGET_IDS, targetInUse } from '../../platforms/targets.ts';
import { isTargetId, validateTarget } from '../../platforms/validate-target.ts';
import { EXIT, run } from '../runtime.ts';

export function register(program: Command): void {
  const platform = program.command('platform').description('deployment targets: capability matrix and offline validation');
  platform
    .command('matrix')
    .description('capabilities × targets and the tests that prove them')
    .option('--config <file>', 'configuration file (to mark the target in use)')
    .action((o: { config?: string }, cmd: Command) => run(cmd, async () => ({ in_use: targetInUse(loadConfig({ file: o.config }).config), ...capabilityMatrix() })));
  platform
    .command('validate')
    .description(`validate a target without starting a server: ${TARGET_IDS.join(', ')} (default: the configured one); exits 3 with reasons when it fails`)
    .option('--target <target>', 'target id')
    .option('--config <file>', 'configuration file')
    .action((o: { target?: string; config?: string }, cmd: Command) =>
      run(
        cmd,
        async (g) => {
          const { config } = loadConfig({ file: o.config });
          const target = o.target ?? targetInUse(config);
          if (!isTargetId(target)) throw new Error(`unknown target '${target}' (one of ${TARGET_IDS.join(', ')})`);
          const result = await validateTarget(target, config, { env: process.env });
          if (!result.ok && !g.json) for (const c of result.checks.filter((x) => !x.ok && x.required)) process.stderr.write(`svc: ${target}: ${c.name} failed: ${c.detail}\n`);
          return result;
        },
        (r) => ((r as TargetValidation).ok ? EXIT.ok : EXIT.verification),
      ),
    );
}
