/**
 * The `svc` command line. Each command group lives in `commands/` and is a
 * thin adapter: parse flags, call the API (or, for naturally offline
 * commands, the domain), print. `--json` prints API responses unchanged.
 *
 * Start-up: only the module of the command being run is imported (a command
 * module may pull in configuration loading, the platform checks or provider
 * code that `svc execute` never needs); help, `help <cmd>` and unknown
 * commands import every group, in the order help lists them.
 */
import { Command } from 'commander';
import { commandWord } from './command-word.ts';
import { EXIT } from './runtime.ts';

const program = new Command('svc')
  .description('svc — work-unit optimization service')
  .option('--url <url>', 'server URL (default: SVC_URL or the configured host and port)')
  .option('--json', 'print the API JSON unchanged')
  .showHelpAfterError()
  // Commander exits 1 on a usage error; svc's contract (README: exit codes)
  // is 2 for usage, 1 for a failed request. Set before the groups register:
  // subcommands inherit it.
  .exitOverride((err) => {
    process.exit(err.exitCode === 0 ? EXIT.ok : EXIT.usage);
  });

type Register = (program: Command) => void;
/** Command groups in help order: the names (and aliases) each registers, and its module. */
const GROUPS: Array<{ names: string[]; load: () => Promise<{ register: Register }> }> = [
  { names: ['init', 'serve'], load: () => import('./commands/serve.ts') },
  { names: ['plan', 'work-unit', 'work-units'], load: () => import('./commands/work-unit.ts') },
  // Registers `execute` and adds `work-unit execute` to the work-unit group.
  { names: ['execute', 'work-unit', 'work-units'], load: () => import('./commands/execute.ts') },
  { names: ['manifest'], load: () => import('./commands/manifest.ts') },
  { names: ['ledger', 'logs'], load: () => import('./commands/ledger.ts') },
  { names: ['policy'], load: () => import('./commands/policy.ts') },
  { names: ['gateway'], load: () => import('./commands/gateway.ts') },
  { names: ['report'], load: () => import('./commands/report.ts') },
  { names: ['platform'], load: () => import('./commands/platform.ts') },
  { names: ['scheduler'], load: () => import('./commands/scheduler.ts') },
  { names: ['cache'], load: () => import('./commands/cache.ts') },
  { names: ['benchmark'], load: () => import('./commands/benchmark.ts') },
  { names: ['restore-test'], load: () => import('./commands/restore-test.ts') },
  { names: ['gc'], load: () => import('./commands/gc.ts') },
  { names: ['chunks'], load: () => import('./commands/chunks.ts') },
  { names: ['adapter'], load: () => import('./commands/adapter.ts') },
  { names: ['plugin'], load: () => import('./commands/plugin.ts') },
];

const word = commandWord(process.argv.slice(2));
const needed = GROUPS.filter((g) => word !== undefined && g.names.includes(word));
for (const group of needed.length > 0 ? needed : GROUPS) (await group.load()).register(program);

await program.parseAsync(process.argv);
