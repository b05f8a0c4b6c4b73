#!/usr/bin/env node
// `attr-trust-store-validate`. Runs the TypeScript sources on Node >= 24 (node-24.mjs).
import { ensureNode24 } from './node-24.mjs';
await ensureNode24('attr-trust-store-validate');
const { runTrustStoreValidateCli } = await import('../src/attr/trust-store/trust-store-validate-cli.ts');
process.exitCode = await runTrustStoreValidateCli(process.argv.slice(2));
