/**
 * What every command shares: global options, the API client, printing and
 * exit codes. Exit codes: 0 ok, 1 the request failed (error body printed),
 * 2 usage or local input error, 3 a verification found a problem.
 */
import type { Command } from 'commander';
import { ApiError, SvcClient } from './client.ts';
import { print } from './output.ts';

export interface GlobalOptions {
  url?: string;
  json?: boolean;
}

export const EXIT = { ok: 0, failed: 1, usage: 2, verification: 3 } as const;

export function globals(cmd: Command): GlobalOptions {
  return cmd.optsWithGlobals() as GlobalOptions;
}

export function clientFor(g: GlobalOptions): SvcClient {
  return new SvcClient({ url: g.url });
}

export const UNREACHABLE = 'cannot reach the server (is `svc serve` running? set SVC_URL)';

/** A connection the server refused (node:http), or fetch's wrapper of one. */
export function isUnreachable(err: unknown): boolean {
  const e = err as { code?: string; message?: string };
  return e?.code === 'ECONNREFUSED' || (err instanceof TypeError && /fetch failed/.test(String(e.message)));
}

/** Runs a command body; prints its result; maps failures to exit codes. Returning `undefined` prints nothing. */
export async function run(cmd: Command, body: (g: GlobalOptions) => Promise<unknown>, exitCode?: (result: unknown) => number): Promise<void> {
  const g = globals(cmd);
  try {
    const result = await body(g);
    if (result !== undefined) print(result, g.json === true);
    process.exitCode = exitCode ? exitCode(result) : EXIT.ok;
  } catch (err) {
    if (err instanceof ApiError) {
      if (g.json) print(err.body, true);
      else process.stderr.write(`svc: ${err.message}\n`);
      process.exitCode = EXIT.failed;
      return;
    }
    if (isUnreachable(err)) {
      process.stderr.write(`svc: ${UNREACHABLE}\n`);
      process.exitCode = EXIT.failed;
      return;
    }
    process.stderr.write(`svc: ${(err as { message?: string })?.message ?? String(err)}\n`);
    process.exitCode = EXIT.usage;
  }
}
