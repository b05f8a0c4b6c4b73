/**
 * `npm run soak -- attr [--attributions N] [--rotations R] [--concurrency C]`:
 * runs a soak and prints its figures as JSON; exit 0 when it passed. Not part
 * of `npm test` (a short version is: test/attr/ops/audit-soak-short.test.ts).
 */
import { parseArgs } from 'node:util';
import { runAttrSoak } from './attr-soak.ts';

const [suite, ...rest] = process.argv.slice(2);
if (suite !== 'attr') {
  console.error('usage: npm run soak -- attr [--attributions 100000] [--rotations 2] [--concurrency 16]');
  process.exit(2);
}
const { values } = parseArgs({ args: rest, options: { attributions: { type: 'string', default: '100000' }, rotations: { type: 'string', default: '2' }, concurrency: { type: 'string', default: '16' } } });
const result = await runAttrSoak({
  attributions: Number(values.attributions),
  rotations: Number(values.rotations),
  concurrency: Number(values.concurrency),
  log: (line) => console.error(`[soak] ${line}`),
});
console.log(JSON.stringify(result, null, 2));
process.exit(result.passed ? 0 : 1);
