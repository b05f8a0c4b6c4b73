#!/usr/bin/env node
// The `attr-source-footer-verify` command. Runs the TypeScript sources on Node >= 24 (node-24.mjs).
import { ensureNode24 } from './node-24.mjs';
await ensureNode24('attr-source-footer-verify');
await import('../src/attr/verify/cli/footer-verify-cli.ts');
