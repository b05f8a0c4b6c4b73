/**
 * The `svc` command line. Each command group lives in `commands/` and is a
 * thin adapter: parse flags, call the API (or, for naturally offline
 * commands, the domain), print. `--json` prints API responses unchanged.
 */
import { Command } from 'commander';
import { register as registerAdapter } from './commands/adapter.ts';
import { register as registerBenchmark } from './commands/benchmark.ts';
import { register as registerCache } from './commands/cache.ts';
import { register as registerRestoreTest } from './commands/restore-test.ts';
import { register as registerGc } from './commands/gc.ts';
import { register as registerExecute } from './commands/execute.ts';
import { register as registerGateway } from './commands/gateway.ts';
import { register as registerLedger } from './commands/ledger.ts';
import { register as registerManifest } from './commands/manifest.ts';
import { register as registerPlugin } from './commands/plugin.ts';
import { register as registerPolicy } from './commands/policy.ts';
import { register as registerReport } from './commands/report.ts';
import { register as registerPlatform } from './commands/platform.ts';
import { register as registerScheduler } from './commands/scheduler.ts';
import { register as registerServe } from './commands/serve.ts';
import { register as registerWorkUnit } from './commands/work-unit.ts';
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

registerServe(program);
registerWorkUnit(program);
registerExecute(program);
registerManifest(program);
registerLedger(program);
registerPolicy(program);
registerGateway(program);
registerReport(program);
registerPlatform(program);
registerScheduler(program);
registerCache(program);
registerBenchmark(program);
registerRestoreTest(program);
registerGc(program);
registerAdapter(program);
registerPlugin(program);

await program.parseAsync(process.argv);
