/**
 * Child-process entry of a benchmark run started on a deployment:
 * `node suite-process.ts <suite> <budget-json>`. The parent lowers this
 * process's CPU priority (nice 19) before the suite starts work, so live
 * requests keep their share of the machine; progress and the final report
 * go back over the IPC channel. Exits when the parent disconnects.
 */
import { benchEnvironment, renderMarkdown } from './bench-report.ts';
import { PRODUCT_SUITES } from './suite-catalog.ts';
import type { SuiteBudget, SuiteId } from './suite.ts';

export type SuiteMessage =
  | { type: 'progress'; phase: string; step: number; steps: number }
  | { type: 'report'; report: unknown; markdown: string }
  | { type: 'error'; message: string };

const [suiteId, budgetJson] = process.argv.slice(2);
const suite = PRODUCT_SUITES[suiteId as SuiteId];
const send = (m: SuiteMessage): Promise<void> => new Promise((resolve) => (process.send ? process.send(m, () => resolve()) : resolve()));
process.on('disconnect', () => process.exit(0));
if (!suite || !budgetJson) {
  await send({ type: 'error', message: `unknown suite ${suiteId}` });
  process.exit(2);
}
try {
  const started = new Date();
  const report = await suite.run({ budget: JSON.parse(budgetJson) as SuiteBudget, progress: (p) => void send({ type: 'progress', ...p }) });
  const environment = benchEnvironment(started);
  await send({ type: 'report', report: { ...report, environment }, markdown: renderMarkdown(report, environment) });
  process.exit(0);
} catch (err) {
  // The message only: a suite's errors carry no request payloads or secrets.
  await send({ type: 'error', message: err instanceof Error ? err.message : String(err) });
  process.exit(1);
}
