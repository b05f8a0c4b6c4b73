/** `svc plan`, `svc work-unit create|get|plan`. */
import type { Command } from 'commander';
import { type GlobalOptions, clientFor, run } from '../runtime.ts';
import { collectMeta, workUnitBodyFromFile } from '../work-unit-input.ts';

export function register(program: Command): void {
  program
    .command('plan')
    .description('create a work unit from a file and plan it (persists the plan, emits plan.created)')
    .requiredOption('--kind <kind>', 'byte_object | prompt_request | completion_request | embedding_request')
    .requiredOption('--file <path>', 'the object (byte_object) or JSON payload')
    .option('--tenant <tenant>')
    .option('--logical-ref <ref>', 'scheme://path (default: file:// URL of --file)')
    .option('--contract <contract>', 'exact_bytes | semantic')
    .option('--mode <mode>', 'observe | enforce')
    .option('--meta <key=value>', 'metadata entry (repeatable)', collectMeta)
    .action((o, cmd: Command) =>
      run(cmd, async (g: GlobalOptions) => {
        const body = workUnitBodyFromFile({ kind: o.kind, file: o.file, tenant: o.tenant, logicalRef: o.logicalRef, contract: o.contract, metadata: o.meta });
        if (o.mode) body.mode = o.mode;
        return clientFor(g).json('POST', '/v1/work-units/plan', body);
      }),
    );

  const wu = program.command('work-unit').description('work units');
  wu.command('create')
    .description('create a work unit from a file')
    .requiredOption('--kind <kind>')
    .requiredOption('--file <path>')
    .option('--tenant <tenant>')
    .option('--logical-ref <ref>')
    .option('--contract <contract>')
    .option('--meta <key=value>', 'metadata entry (repeatable)', collectMeta)
    .action((o, cmd: Command) =>
      run(cmd, async (g) =>
        clientFor(g).json('POST', '/v1/work-units', workUnitBodyFromFile({ kind: o.kind, file: o.file, tenant: o.tenant, logicalRef: o.logicalRef, contract: o.contract, metadata: o.meta })),
      ),
    );
  wu.command('get <id>')
    .description('show a work unit')
    .action((id: string, _o, cmd: Command) => run(cmd, async (g) => clientFor(g).json('GET', `/v1/work-units/${encodeURIComponent(id)}`)));
  wu.command('plan <id>')
    .description('plan a stored work unit')
    .option('--mode <mode>', 'observe | enforce')
    .action((id: string, o, cmd: Command) =>
      run(cmd, async (g) => clientFor(g).json('POST', `/v1/work-units/${encodeURIComponent(id)}/plan`, o.mode ? { mode: o.mode } : {})),
    );
}
