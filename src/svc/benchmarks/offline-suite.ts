/**
 * `npm run bench -- <product suite> [--max-seconds N] [--max-bytes N]`: the
 * same implementation the server runs, in this process, progress on stderr.
 */
import type { BenchReport } from './bench-report.ts';
import type { ProductSuite } from './suite.ts';

export function offlineSuite(suite: ProductSuite): (args: string[]) => Promise<BenchReport> {
  return (args) => {
    const flag = (name: string) => {
      const i = args.indexOf(name);
      const v = i >= 0 ? Number(args[i + 1]) : undefined;
      if (v !== undefined && !(Number.isInteger(v) && v > 0)) throw new Error(`${name} needs a positive whole number`);
      return v;
    };
    const budget = { ...suite.default_budget, ...(flag('--max-seconds') ? { max_seconds: flag('--max-seconds')! } : {}), ...(flag('--max-bytes') ? { max_bytes: flag('--max-bytes')! } : {}) };
    return suite.run({ budget, progress: (p) => process.stderr.write(`${suite.id}: ${p.phase} (${p.step}/${p.steps})\n`) });
  };
}
