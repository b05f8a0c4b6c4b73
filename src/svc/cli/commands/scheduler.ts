/**
 * `svc scheduler submit|plan|get|list|cancel|complete|forecast`: the energy-
 * aware scheduler over REST (/v1/scheduler, docs/scheduler.md). Every command
 * is one request; the server validates (a bad window or zone is its 400).
 */
import { readFileSync } from 'node:fs';
import { type Command, InvalidArgumentError, Option } from 'commander';
import { clientFor, run } from '../runtime.ts';
import { collectMeta } from '../work-unit-input.ts';

function integer(value: string): number {
  if (!/^\d+$/.test(value)) throw new InvalidArgumentError('must be a whole number');
  return Number(value);
}

function decimal(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n)) throw new InvalidArgumentError('must be a number');
  return n;
}

/** The job request options `submit` and `plan` share. */
function jobOptions(cmd: Command): Command {
  return cmd
    .requiredOption('--deadline <time>', 'hard deadline (ISO 8601, e.g. 2026-11-25T06:00:00Z)')
    .requiredOption('--duration-seconds <n>', 'estimated run time in seconds', integer)
    .requiredOption('--zone <zone>', 'grid zone (e.g. DE, GB, US-CAL-CISO)')
    .option('--earliest-start <time>', 'earliest start (ISO 8601; default now)')
    .option('--energy-kwh <kwh>', 'estimated energy (kWh)', decimal)
    .option('--power-w <watts>', 'average power (W), instead of --energy-kwh', decimal)
    .option('--priority <0-9>', 'priority (default 5)', integer)
    .addOption(new Option('--mode <mode>', 'enforce shifts; observe computes the shift and runs at the earliest start').choices(['observe', 'enforce']))
    .addOption(new Option('--contract <contract>', 'the contract policy is asked about shifting under (default: the work units\' own, else exact_bytes)').choices(['exact_bytes', 'semantic']))
    .option('--tenant <tenant>')
    .option('--work-unit-id <id>', 'the work unit this job belongs to (traceability)')
    .option('--meta <key=value>', 'metadata entry (repeatable)', collectMeta)
    .option('--execute <work-unit-id>', 'execute this stored work unit when due (repeatable; makes it a work_units job)', (v: string, prev: string[] = []) => [...prev, v])
    .option('--webhook-url <url>', 'POSTed a signed body when the job starts and ends (server needs SVC_SCHEDULER_WEBHOOK_SECRET)');
}

function jobBody(o: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = { deadline: o.deadline, duration_seconds: o.durationSeconds, zone: o.zone };
  const optional: Array<[string, unknown]> = [
    ['earliest_start', o.earliestStart],
    ['energy_kwh', o.energyKwh],
    ['average_power_w', o.powerW],
    ['priority', o.priority],
    ['mode', o.mode],
    ['contract', o.contract],
    ['tenant', o.tenant],
    ['work_unit_id', o.workUnitId],
    ['metadata', o.meta],
    ['webhook_url', o.webhookUrl],
    ['kind', o.execute ? 'work_units' : undefined],
    ['work_unit_ids', o.execute],
  ];
  for (const [key, value] of optional) if (value !== undefined) body[key] = value;
  return body;
}

/** A forecast file: `{source?, points: [...]}` or a bare array of points. */
function forecastBody(file: string, source: string | undefined): Record<string, unknown> {
  let doc: unknown;
  try {
    doc = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new InvalidArgumentError(`cannot read forecast file ${file}: ${(err as Error).message}`);
  }
  const body = (Array.isArray(doc) ? { points: doc } : doc) as Record<string, unknown>;
  return source === undefined ? body : { ...body, source };
}

export function register(program: Command): void {
  const scheduler = program.command('scheduler').description('energy-aware scheduler for flexible jobs (docs/scheduler.md); gCO2 figures are estimates');

  jobOptions(scheduler.command('submit').description('submit a flexible job; svc plans its start inside [earliest start, deadline − duration]')).action((o, cmd: Command) =>
    run(cmd, async (g) => clientFor(g).json('POST', '/v1/scheduler/jobs', jobBody(o))),
  );

  jobOptions(scheduler.command('plan').description('plan preview: the start svc would choose now; stores nothing')).action((o, cmd: Command) =>
    run(cmd, async (g) => clientFor(g).json('POST', '/v1/scheduler/plan', jobBody(o))),
  );

  scheduler
    .command('get <id>')
    .description('show a job (state, chosen start, estimated gCO2 at baseline and plan)')
    .action((id: string, _o, cmd: Command) => run(cmd, async (g) => clientFor(g).json('GET', `/v1/scheduler/jobs/${encodeURIComponent(id)}`)));

  scheduler
    .command('list')
    .description('list jobs, oldest first; prints next_after when more follow')
    .option('--tenant <tenant>')
    .addOption(new Option('--state <state>').choices(['scheduled', 'running', 'succeeded', 'failed', 'cancelled', 'missed']))
    .option('--zone <zone>')
    .option('--after <id>', 'next_after of the previous page')
    .option('--limit <n>', 'page size (1-1000, default 100)', integer)
    .action((o, cmd: Command) =>
      run(cmd, async (g) => {
        const params = Object.entries({ tenant: o.tenant, state: o.state, zone: o.zone, after: o.after, limit: o.limit === undefined ? undefined : String(o.limit) }).filter(
          (e): e is [string, string] => typeof e[1] === 'string' && e[1] !== '',
        );
        return clientFor(g).json('GET', `/v1/scheduler/jobs${params.length > 0 ? `?${new URLSearchParams(params).toString()}` : ''}`);
      }),
    );

  scheduler
    .command('cancel <id>')
    .description('cancel a scheduled or running job')
    .action((id: string, _o, cmd: Command) => run(cmd, async (g) => clientFor(g).json('POST', `/v1/scheduler/jobs/${encodeURIComponent(id)}/cancel`, {})));

  scheduler
    .command('complete <id>')
    .description('report that a started external job finished')
    .addOption(new Option('--outcome <outcome>').choices(['succeeded', 'failed']).makeOptionMandatory())
    .action((id: string, o, cmd: Command) => run(cmd, async (g) => clientFor(g).json('POST', `/v1/scheduler/jobs/${encodeURIComponent(id)}/complete`, { outcome: o.outcome })));

  scheduler
    .command('forecast')
    .description(
      "load carbon-intensity forecast points (admin:switches) from a JSON file {source?, points:[{zone,start,end,gco2_per_kwh}]} (or an array of points), --pull them from the configured providers, or --reload the server's forecast file",
    )
    .option('--file <path>', 'forecast JSON file')
    .option('--source <name>', 'source label recorded with the points (e.g. electricitymaps)')
    .option('--pull', 'pull from scheduler.forecast_providers now')
    .option('--reload', "re-read the server's forecast file (scheduler.forecast_file) now")
    .action((o, cmd: Command) =>
      run(cmd, async (g) => {
        if ([o.file !== undefined, o.pull === true, o.reload === true].filter(Boolean).length !== 1) throw new InvalidArgumentError('give one of --file <path>, --pull, --reload');
        if (o.pull) return clientFor(g).json('POST', '/v1/scheduler/forecasts/pull', {});
        if (o.reload) return clientFor(g).json('POST', '/v1/scheduler/forecasts/reload', {});
        return clientFor(g).json('POST', '/v1/scheduler/forecasts', forecastBody(o.file, o.source));
      }),
    );
}
