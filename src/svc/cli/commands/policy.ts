/**
 * `svc policy validate <file>` (offline: no server, no credentials; exits 3
 * with `file:line:column: message` lines when the document is invalid),
 * `svc policy reload --name <name>`, `svc policy publish --name <name> --file <file>`,
 * `svc policy bundles`.
 */
import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { formatValidationIssues, validatePolicyText } from '../../policy/validate-policy-text.ts';
import { EXIT, clientFor, globals, run } from '../runtime.ts';

export function register(program: Command): void {
  const policy = program.command('policy').description('policies and policy bundles');

  policy
    .command('validate <file>')
    .description('validate a policy or bundle (YAML or JSON) offline; errors name line and column')
    .action((file: string, _o, cmd: Command) =>
      run(
        cmd,
        async (g) => {
          const result = validatePolicyText(await readFile(file, 'utf8'));
          if (result.ok) return g.json ? { valid: true, kind: result.kind, errors: [] } : { valid: true, kind: result.kind };
          if (!g.json) {
            for (const line of formatValidationIssues(file, result.errors)) process.stderr.write(`${line}\n`);
            return undefined;
          }
          return { valid: false, kind: result.kind, errors: result.errors };
        },
        (r) => (r === undefined || (r as { valid?: boolean }).valid === false ? EXIT.verification : EXIT.ok),
      ),
    );

  policy
    .command('reload')
    .description('validate the active bundle on the server disk and put it in force (a bad bundle keeps the old one)')
    .requiredOption('--name <name>', 'bundle name')
    .action((o: { name: string }, cmd: Command) => run(cmd, async (g) => clientFor(g).json('POST', `/v1/policies/bundles/${encodeURIComponent(o.name)}/reload`)));

  policy
    .command('publish')
    .description('publish a bundle file (requires the policy-publisher role)')
    .requiredOption('--name <name>', 'bundle name (must match the file)')
    .requiredOption('--file <file>', 'bundle YAML or JSON')
    .action((o: { name: string; file: string }, cmd: Command) =>
      run(cmd, async (g) => clientFor(g).json('POST', `/v1/policies/bundles/${encodeURIComponent(o.name)}/publish`, { document: await readFile(o.file, 'utf8') })),
    );

  policy
    .command('bundles')
    .description('list bundles and their versions')
    .action((_o, cmd: Command) => run(cmd, async () => clientFor(globals(cmd)).json('GET', '/v1/policies/bundles')));
}
