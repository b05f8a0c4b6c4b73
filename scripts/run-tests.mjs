#!/usr/bin/env node
// Runs every test file with Node's built-in test runner. Test files live
// beside the code they test (`*.test.ts`) and, for whole-service tests,
// under test/. Extra arguments narrow the run: `npm run test:unit -- src/attr`.
import { spawnSync } from 'node:child_process';
import { globSync } from 'node:fs';

const roots = process.argv.slice(2);
const patterns = roots.length > 0
  ? roots.map((r) => (r.endsWith('.ts') ? r : `${r.replace(/\/$/, '')}/**/*.test.ts`))
  : ['src/**/*.test.ts', 'test/**/*.test.ts', 'tools/**/*.test.ts'];
const files = patterns.flatMap((p) => globSync(p)).sort();
if (files.length === 0) {
  console.error(`no test files match ${patterns.join(' ')}`);
  process.exit(1);
}
const result = spawnSync(process.execPath, ['--test', '--test-concurrency=2', '--test-timeout=300000', ...files], { stdio: 'inherit' });
process.exit(result.status ?? 1);
