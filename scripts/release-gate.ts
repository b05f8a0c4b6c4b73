/**
 * `npm run release-gate [-- --json] [--max-overhead-ratio N]`: the spec's six
 * release conditions (src/svc/release-gate/release-gate.ts,
 * docs/versioning.md). Prints one line per condition; exits 1 when any fails.
 */
import { DEFAULT_MAX_OVERHEAD_RATIO, runReleaseGate } from '../src/svc/release-gate/release-gate.ts';

const args = process.argv.slice(2);
const json = args.includes('--json');
const i = args.indexOf('--max-overhead-ratio');
const maxOverheadRatio = i >= 0 ? Number(args[i + 1]) : DEFAULT_MAX_OVERHEAD_RATIO;
if (!(maxOverheadRatio > 0)) {
  process.stderr.write('release-gate: --max-overhead-ratio needs a positive number\n');
  process.exit(2);
}
const report = await runReleaseGate({ maxOverheadRatio, progress: (c) => process.stderr.write(`release-gate: ${c}…\n`) });
if (json) process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
else {
  for (const c of report.conditions) process.stdout.write(`${c.passed ? 'PASS' : 'FAIL'}  ${c.id.padEnd(20)} ${c.summary}\n`);
  process.stdout.write(report.passed ? 'release gate: every condition holds\n' : 'release gate: FAILED — the release does not ship\n');
}
process.exit(report.passed ? 0 : 1);
