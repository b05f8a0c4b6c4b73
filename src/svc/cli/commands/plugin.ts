/**
 * `svc plugin …`: signed plugins (docs/plugins.md). Thin: read a bundle
 * directory when installing, call `/v1/plugins`, print.
 *
 *   svc plugin list
 *   svc plugin get <id>
 *   svc plugin install <dir>        (manifest.json, manifest.json.sig and the files it lists)
 *   svc plugin enable <id>
 *   svc plugin disable <id>
 */
import type { Command } from 'commander';
import { readBundleDir } from '../../plugins/bundle-dir.ts';
import { clientFor, run } from '../runtime.ts';

export function register(program: Command): void {
  const plugin = program.command('plugin').description('signed plugins: transforms, verifiers, adapters (docs/plugins.md)');
  plugin
    .command('list')
    .description('installed plugins with their status')
    .action((_o: unknown, cmd: Command) => run(cmd, (g) => clientFor(g).json('GET', '/v1/plugins')));
  plugin
    .command('get <id>')
    .description('one installed plugin')
    .action((id: string, _o: unknown, cmd: Command) => run(cmd, (g) => clientFor(g).json('GET', `/v1/plugins/${encodeURIComponent(id)}`)));
  plugin
    .command('install <dir>')
    .description('install a signed bundle directory (it starts disabled; enable it next)')
    .action((dir: string, _o: unknown, cmd: Command) => run(cmd, (g) => clientFor(g).json('POST', '/v1/plugins', readBundleDir(dir))));
  plugin
    .command('enable <id>')
    .description("check the installed bundle's signature again and enable it")
    .action((id: string, _o: unknown, cmd: Command) => run(cmd, (g) => clientFor(g).json('POST', `/v1/plugins/${encodeURIComponent(id)}/enable`)));
  plugin
    .command('disable <id>')
    .description('the rollback switch for one plugin (recorded in the ledger)')
    .action((id: string, _o: unknown, cmd: Command) => run(cmd, (g) => clientFor(g).json('POST', `/v1/plugins/${encodeURIComponent(id)}/disable`)));
}
