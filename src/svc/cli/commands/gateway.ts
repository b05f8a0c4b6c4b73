/** `svc gateway ai --provider <name>`: check a configured AI provider and print the routing table (src/svc/ai/providers/provider-check.ts). */
import type { Command } from 'commander';
import { checkProvider } from '../../ai/providers/provider-check.ts';
import { parseProvidersSection, providersFromEnv } from '../../ai/providers/provider-config.ts';
import { loadConfig } from '../../config/load.ts';
import { EXIT, run } from '../runtime.ts';

export function register(program: Command): void {
  const gateway = program.command('gateway').description('gateways');
  gateway
    .command('ai')
    .description('check an AI provider: reachability, models, a tiny verified call; print what `auto` and fallbacks route to')
    .requiredOption('--provider <name>', 'provider name from SVC_PROVIDERS_JSON or the config file')
    .option('--config <file>', 'config file (default: SVC_CONFIG or <state dir>/svc.yaml)')
    .action((o: { provider: string; config?: string }, cmd: Command) =>
      run(
        cmd,
        async () => {
          const providers = providersFromEnv(process.env) ?? parseProvidersSection(loadConfig(o.config ? { file: o.config } : {}).config.providers, 'config providers');
          return checkProvider(providers, o.provider, process.env);
        },
        (report) => ((report as { ok: boolean }).ok ? EXIT.ok : EXIT.verification),
      ),
    );
}
