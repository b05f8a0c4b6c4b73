#!/usr/bin/env node
// `attr-service`. Runs the TypeScript sources on Node >= 24 (node-24.mjs).
import { ensureNode24 } from './node-24.mjs';
await ensureNode24('attr-service');
const { runServiceCli } = await import('../src/attr/service/service-cli.ts');
process.exitCode = await runServiceCli(process.argv.slice(2));
