/**
 * `npm run bench -- <suite> [args]`: runs bench/suites/<suite>.ts and writes
 * bench/results/<suite>.json (machine-readable) and <suite>.md (a table).
 */
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
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
const environment = {
  node: process.version,
  platform: `${os.platform()} ${os.arch()}`,
  cpus: os.cpus().length,
  cpu_model: os.cpus()[0]?.model ?? 'unknown',
  memory_gib: Math.round(os.totalmem() / 2 ** 30),
  started_at: started.toISOString(),
  duration_s: (Date.now() - started.getTime()) / 1000,
};
const outDir = path.join(here, 'results');
mkdirSync(outDir, { recursive: true });
writeFileSync(path.join(outDir, `${report.suite}.json`), `${JSON.stringify({ ...report, environment }, null, 2)}\n`);
const md = [
  `# Benchmark ${report.suite}`,
  '',
  `${environment.started_at} · Node ${environment.node} · ${environment.cpus} × ${environment.cpu_model}`,
  '',
  `| ${report.table.columns.join(' | ')} |`,
  `|${report.table.columns.map(() => '---').join('|')}|`,
  ...report.table.rows.map((r) => `| ${r.join(' | ')} |`),
  '',
  ...(report.notes ?? []).map((n) => `- ${n}`),
  '',
].join('\n');
writeFileSync(path.join(outDir, `${report.suite}.md`), md);
console.log(md);
