/** How commands print: `--json` gives the API's JSON unchanged (for scripts); otherwise readable YAML. */
import { createRequire } from 'node:module';

/** The YAML library is loaded only when something prints as YAML (it is a noticeable share of CLI start-up). */
function yaml(): typeof import('yaml') {
  return createRequire(import.meta.url)('yaml') as typeof import('yaml');
}

export function print(value: unknown, json: boolean): void {
  // Text a command already rendered (a Markdown table) prints as it is.
  if (typeof value === 'string' && !json) process.stdout.write(value.endsWith('\n') ? value : `${value}\n`);
  else process.stdout.write(json ? `${JSON.stringify(value, null, 2)}\n` : yaml().stringify(value));
}

export function fail(message: string, code = 1): never {
  process.stderr.write(`svc: ${message}\n`);
  process.exit(code);
}
