/**
 * `npm run bench -- <suite> [args]`: runs bench/suites/<suite>.ts and writes
 * bench/results/<suite>.json (machine-readable) and <suite>.md (a table).
 * The suites a deployment can run against itself (object-exact-v1,
 * prompt-cache-v1, load-local-v1) live in src/svc/benchmarks and are also
 * served by `svc benchmark run` (docs/benchmarks.md).
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchEnvironment, renderMarkdown } from '../src/svc/benchmarks/bench-report.ts';
import type { BenchReport, BenchSuite } from './report.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
const [suiteName, ...args] = process.argv.slice(2);
const available = readdirSync(path.join(here, 'suites')).filter((f) => f.endsWith('.ts')).map((f) => f.slice(0, -3));
if (!suiteName || !available.includes(suiteName)) {
  console.error(`usage: npm run bench -- <suite>\navailable suites: ${available.join(', ')}`);
  process.exit(2);
}
const mod = (await import(path.join(here, 'suites', `${suiteName}.ts`))) as { default: BenchSuite };
const started = new Date();
const report: BenchReport = await mod.default(args);
const environment = benchEnvironment(started);
const outDir = path.join(here, 'results');
mkdirSync(outDir, { recursive: true });
writeFileSync(path.join(outDir, `${report.suite}.json`), `${JSON.stringify({ ...report, environment }, null, 2)}\n`);
const md = renderMarkdown(report, environment);
writeFileSync(path.join(outDir, `${report.suite}.md`), md);
console.log(md);
