/**
 * `npm run soak -- <suite>`: long runs that are not part of `npm test` (each
 * has a short version there). Prints figures; exit 0 when it passed.
 *
 * - `attr [--attributions N] [--rotations R] [--concurrency C]`: 100k attributions with audit rotations.
 * - `scaleout [--ops N] [--kills K]`: two svc processes on PostgreSQL + S3 (test/scaleout/two-processes.test.ts),
 *   10,000 operations and 10 SIGKILLs by default; needs SVC_TEST_DATABASE_URL.
 * - `adversarial [--requests N] [--kills K]`: the cross-tenant suite with 100,000 requests and the crash suite
 *   with 50 kills (test/security/).
 * - `memory [--requests N] [--clients C] [--out DIR] [--mix op=share,…] [--node-flags="…"]`: resident memory of a fresh `svc serve` under a mixed
 *   load (puts, multipart, rehydrates, cache, chat), 100,000 requests by default; writes DIR/memory.{json,md}
 *   (default soak/results). A shorter run: `--requests 10000`. test/memory/ holds the `npm test` version.
 */
import { spawnSync } from 'node:child_process';
import { parseArgs } from 'node:util';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runAttrSoak } from './attr-soak.ts';
import { memorySoakMarkdown, OPS, runMemorySoak } from './memory-soak.ts';

const USAGE = 'usage: npm run soak -- attr [--attributions 100000] [--rotations 2] [--concurrency 16] | scaleout [--ops 10000] [--kills 10] | adversarial [--requests 100000] [--kills 50] | memory [--requests 100000] [--clients 16] [--out soak/results] [--mix op=share,…] [--node-flags="--flag …" (default: those of npm start)]';
const [suite, ...rest] = process.argv.slice(2);

/** Runs test files under node:test with the given environment; their diagnostics carry the figures. */
function runTests(files: string[], env: Record<string, string>): number {
  const r = spawnSync(process.execPath, ['--test', '--test-timeout=3600000', ...files], { stdio: 'inherit', env: { ...process.env, ...env } });
  return r.status ?? 1;
}

if (suite === 'attr') {
  const { values } = parseArgs({ args: rest, options: { attributions: { type: 'string', default: '100000' }, rotations: { type: 'string', default: '2' }, concurrency: { type: 'string', default: '16' } } });
  const result = await runAttrSoak({
    attributions: Number(values.attributions),
    rotations: Number(values.rotations),
    concurrency: Number(values.concurrency),
    log: (line) => console.error(`[soak] ${line}`),
  });
  console.log(JSON.stringify(result, null, 2));
  process.exit(result.passed ? 0 : 1);
} else if (suite === 'scaleout') {
  const { values } = parseArgs({ args: rest, options: { ops: { type: 'string', default: '10000' }, kills: { type: 'string', default: '10' } } });
  if (!process.env.SVC_TEST_DATABASE_URL) {
    console.error('scaleout needs PostgreSQL: set SVC_TEST_DATABASE_URL (e.g. postgres://postgres@127.0.0.1:5432/test)');
    process.exit(2);
  }
  process.exit(runTests(['test/scaleout/two-processes.test.ts'], { SVC_SCALEOUT_OPS: values.ops, SVC_SCALEOUT_KILLS: values.kills }));
} else if (suite === 'adversarial') {
  const { values } = parseArgs({ args: rest, options: { requests: { type: 'string', default: '100000' }, kills: { type: 'string', default: '50' } } });
  process.exit(runTests(['test/security/cross-tenant.test.ts', 'test/security/crash.test.ts'], { SVC_ADVERSARIAL_REQUESTS: values.requests, SVC_CRASH_KILLS: values.kills }));
} else if (suite === 'memory') {
  const { values } = parseArgs({ args: rest, options: { requests: { type: 'string', default: '100000' }, clients: { type: 'string', default: '16' }, out: { type: 'string', default: 'soak/results' }, mix: { type: 'string' }, 'node-flags': { type: 'string' } } });
  // --mix put_small=3,chat=1: only these operations, in these shares (to find which one grows memory).
  const mix = values.mix ? Object.fromEntries(values.mix.split(',').map((kv) => [kv.split('=')[0]!, Number(kv.split('=')[1] ?? 1)])) : undefined;
  const unknown = Object.keys(mix ?? {}).filter((op) => !(OPS as readonly string[]).includes(op));
  if (unknown.length > 0) {
    console.error(`unknown operations in --mix: ${unknown.join(', ')} (known: ${OPS.join(', ')})`);
    process.exit(2);
  }
  const result = await runMemorySoak({ requests: Number(values.requests), clients: Number(values.clients), ...(mix ? { mix } : {}), ...(values['node-flags'] !== undefined ? { nodeFlags: values['node-flags'].split(/\s+/).filter(Boolean) } : {}), log: (line) => console.error(`[soak] ${line}`) });
  mkdirSync(values.out, { recursive: true });
  writeFileSync(path.join(values.out, 'memory.json'), `${JSON.stringify(result, null, 2)}\n`);
  const report = memorySoakMarkdown(result);
  writeFileSync(path.join(values.out, 'memory.md'), report);
  console.log(report);
  process.exit(result.passed ? 0 : 1);
} else {
  console.error(USAGE);
  process.exit(2);
}
