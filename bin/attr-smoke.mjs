#!/usr/bin/env node
// `attr-smoke`. Runs the TypeScript sources on Node >= 24 (node-24.mjs).
import { ensureNode24 } from './node-24.mjs';
await ensureNode24('attr-smoke');
const { runSmokeCli } = await import('../src/attr/smoke/smoke-cli.ts');
process.exitCode = await runSmokeCli(process.argv.slice(2));
