/**
 * `attr-service-config create|validate|footer-key`.
 *
 *   attr-service-config create --template default --corpus <path> --audit-log-path <path> --artifact-dir <path> --output <path> [--force]
 *   attr-service-config validate --config <path>
 *   attr-service-config footer-key --key-id <id> --private-key <path> --trust-store <path> [--issuer <name>]
 *
 * `footer-key` creates an Ed25519 footer signing key (mode 0600, never
 * overwritten) and publishes its public key in the trust store (created when
 * missing), allowed `receipt_public_key` (docs/decisions/136-signed-footers.md).
 *
 * `create` creates the output's directory when missing, writes the config and then validates it, printing the report;
 * `validate` prints the attr-service-config-verification/v1 report. Exit 0
 * when valid, 1 when not, 2 on usage errors.
 */
import { Command, InvalidArgumentError } from 'commander';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CONFIG_TEMPLATES, configFromTemplate, type ConfigTemplate } from './config-template.ts';
import { createFooterKey } from './footer-key.ts';
import { verifyConfigFile } from './verify-config.ts';

function parseTemplate(value: string): ConfigTemplate {
  if (!(CONFIG_TEMPLATES as readonly string[]).includes(value)) throw new InvalidArgumentError(`unknown template (known: ${CONFIG_TEMPLATES.join(', ')})`);
  return value as ConfigTemplate;
}

export async function runConfigCli(argv: string[]): Promise<number> {
  let exitCode = 0;
  const program = new Command('attr-service-config').description('Create and validate attr service configuration files.').exitOverride().configureOutput({ writeErr: (s) => process.stderr.write(s) });
  program
    .command('create')
    .description('write a config file from a template, then validate it')
    .requiredOption('--template <name>', `template (${CONFIG_TEMPLATES.join(', ')})`, parseTemplate)
    .requiredOption('--corpus <path>', 'corpus JSONL file')
    .requiredOption('--audit-log-path <path>', 'audit log (JSONL) file')
    .requiredOption('--artifact-dir <path>', 'directory for readiness artifacts')
    .requiredOption('--output <path>', 'config file to write')
    .option('--force', 'overwrite an existing file')
    .action(async (o: { template: ConfigTemplate; corpus: string; auditLogPath: string; artifactDir: string; output: string; force?: boolean }) => {
      const document = configFromTemplate(o.template, { corpusPath: o.corpus, auditLogPath: o.auditLogPath, artifactDir: o.artifactDir, outputPath: o.output });
      try {
        // A missing parent directory is created (docs/decisions/133-config-create-output-dir.md).
        await mkdir(path.dirname(path.resolve(o.output)), { recursive: true });
        await writeFile(o.output, `${JSON.stringify(document, null, 2)}\n`, { flag: o.force ? 'w' : 'wx', mode: 0o644 });
      } catch (err) {
        process.stderr.write(`attr-service-config: cannot write ${o.output}: ${(err as NodeJS.ErrnoException).code === 'EEXIST' ? 'file exists (use --force)' : (err as Error).message}\n`);
        exitCode = 2;
        return;
      }
      const report = await verifyConfigFile(o.output);
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      exitCode = report.valid ? 0 : 1;
    });
  program
    .command('validate')
    .description('validate a config file and print the verification report')
    .requiredOption('--config <path>', 'config file')
    .action(async (o: { config: string }) => {
      const report = await verifyConfigFile(o.config);
      process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
      exitCode = report.valid ? 0 : 1;
    });
  program
    .command('footer-key')
    .description('create an Ed25519 footer signing key and publish its public key in the trust store')
    .requiredOption('--key-id <id>', 'key id (as footer_signing.key_id and in the trust store)')
    .requiredOption('--private-key <path>', 'PEM file to create for the private key (mode 0600)')
    .requiredOption('--trust-store <path>', 'trust store to add the public key to (created when missing)')
    .option('--issuer <name>', 'issuer recorded in the trust store', 'attr-service operator')
    .action(async (o: { keyId: string; privateKey: string; trustStore: string; issuer: string }) => {
      const result = await createFooterKey(o);
      if (!result.ok) {
        process.stderr.write(`attr-service-config: ${result.problem}\n`);
        exitCode = result.exitCode;
        return;
      }
      process.stdout.write(`${JSON.stringify(result.summary, null, 2)}\n`);
    });
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    const code = (err as { code?: string }).code;
    return code === 'commander.helpDisplayed' || code === 'commander.version' ? 0 : 2;
  }
  return exitCode;
}
