#!/usr/bin/env node
// `attr-service-config`. Runs the TypeScript sources on Node >= 24 (node-24.mjs).
import { ensureNode24 } from './node-24.mjs';
await ensureNode24('attr-service-config');
const { runConfigCli } = await import('../src/attr/config/config-cli.ts');
process.exitCode = await runConfigCli(process.argv.slice(2));
