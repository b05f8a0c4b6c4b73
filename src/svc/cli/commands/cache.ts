/**
 * `svc cache semantic calibrate --domain d --pairs labelled.jsonl --max-false-accept 0.001 [--tenant t]`:
 * sends the labelled pairs (JSONL `{text_a, text_b, label}`; other fields such as `id` are dropped) to
 * POST /v1/cache/semantic/calibrate, which measures the curve and sets the domain's threshold
 * (docs/semantic-cache.md, "Calibration").
 */
import { readFileSync } from 'node:fs';
import { type Command, InvalidArgumentError } from 'commander';
import { clientFor, run } from '../runtime.ts';

function rate(value: string): number {
  const n = Number(value);
  if (value.trim() === '' || !Number.isFinite(n) || n <= 0 || n >= 1) throw new InvalidArgumentError('must be a fraction between 0 and 1, e.g. 0.001');
  return n;
}

function readPairs(file: string): Array<{ text_a: unknown; text_b: unknown; label: unknown }> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new InvalidArgumentError(`cannot read pairs file ${file}: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  return text
    .split('\n')
    .map((line, i) => [line.trim(), i + 1] as const)
    .filter(([line]) => line !== '')
    .map(([line, n]) => {
      try {
        const { text_a, text_b, label } = JSON.parse(line) as Record<string, unknown>;
        return { text_a, text_b, label };
      } catch {
        throw new InvalidArgumentError(`pairs file ${file} line ${n} is not JSON`);
      }
    });
}

export function register(program: Command): void {
  const cache = program.command('cache').description('the exact and semantic caches');
  const semantic = cache.command('semantic').description('the semantic cache');
  semantic
    .command('calibrate')
    .description("set a domain's threshold at a target false acceptance, measured on your labelled pairs (admin:switches)")
    .requiredOption('--domain <domain>', 'cache domain (e.g. chat:openai/gpt-4o-mini, or your svc.cache_domain)')
    .requiredOption('--pairs <file>', 'JSONL of {text_a, text_b, label}: label 1 = same question, 0 = different')
    .requiredOption('--max-false-accept <rate>', 'largest share of label-0 pairs the cache may serve, e.g. 0.001', rate)
    .option('--tenant <tenant>')
    .action((o, cmd: Command) =>
      run(cmd, async (g) =>
        clientFor(g).json('POST', '/v1/cache/semantic/calibrate', { domain: o.domain, max_false_accept: o.maxFalseAccept, pairs: readPairs(o.pairs), ...(o.tenant ? { tenant: o.tenant } : {}) }),
      ),
    );
}
