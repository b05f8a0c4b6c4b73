/** `svc plan`, `svc work-unit create|get|plan|list` (the group is also `svc work-units`). */
import type { Command } from 'commander';
import { type GlobalOptions, clientFor, run } from '../runtime.ts';
import { collectMeta, workUnitBodyFromFile } from '../work-unit-input.ts';

export function register(program: Command): void {
  program
    .command('plan')
    .description('create a work unit from a file and plan it (persists the plan, emits plan.created)')
    .requiredOption('--kind <kind>', 'byte_object | prompt_request | completion_request | embedding_request')
    .requiredOption('--file <path>', 'the object (byte_object) or JSON payload; - reads standard input (then --logical-ref is required)')
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

  // `svc work-units list` reads naturally; both spellings name the one group.
  const wu = program.command('work-unit').alias('work-units').description('work units (also: svc work-units)');
  wu.command('list')
    .description('list work units, oldest first (GET /v1/work-units); prints next_continuation_token when more follow')
    .option('--tenant <tenant>')
    .option('--kind <kind>', 'e.g. byte_object, prompt_request, cache_store, object_delete')
    .option('--state <state>', 'created | planned | executed | failed')
    .option('--from <time>', 'created at or after (ISO 8601, e.g. 2026-11-24T00:00:00Z)')
    .option('--to <time>', 'created before (ISO 8601)')
    .option('--limit <n>', 'page size (1-1000, default 100)')
    .option('--continuation-token <token>', 'next_continuation_token of the previous page')
    .action((o, cmd: Command) =>
      run(cmd, async (g) => {
        const params = { tenant: o.tenant, kind: o.kind, state: o.state, from: o.from, to: o.to, limit: o.limit, continuation_token: o.continuationToken };
        const entries = Object.entries(params).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '');
        return clientFor(g).json('GET', `/v1/work-units${entries.length > 0 ? `?${new URLSearchParams(entries).toString()}` : ''}`);
      }),
    );
  wu.command('create')
    .description('create a work unit from a file')
    .requiredOption('--kind <kind>')
    .requiredOption('--file <path>', 'the object (byte_object) or JSON payload; - reads standard input (then --logical-ref is required)')
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
