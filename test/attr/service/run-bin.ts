/** Runs one of the repository's bin/ commands as a child process (the real binary, as users run it). */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';

export const REPO = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const EXAMPLE_CORPUS = path.join(REPO, 'examples/attr-corpus/corpus.jsonl');

export interface BinResult {
  code: number;
  stdout: string;
  stderr: string;
  json: any;
}

export function runBin(name: string, args: string[], options: { env?: Record<string, string | undefined>; timeoutMs?: number } = {}): Promise<BinResult> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [path.join(REPO, 'bin', `${name}.mjs`), ...args],
      { env: { PATH: process.env.PATH ?? '', ...options.env }, timeout: options.timeoutMs ?? 120_000, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        let json: unknown;
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
        const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : 1) : 0;
        resolve({ code, stdout, stderr, json });
      },
    );
  });
}

const ajv = new Ajv2020({ strict: false, allErrors: true });

/** A validator for a published schema file under src/attr (independent of TypeBox: ajv). */
export function publishedValidator(relative: string): (value: unknown) => string[] {
  const validate = ajv.compile(JSON.parse(readFileSync(path.join(REPO, 'src/attr', relative), 'utf8')));
  return (value: unknown) => (validate(value) ? [] : (validate.errors ?? []).map((e) => `${e.instancePath} ${e.message}`));
}
