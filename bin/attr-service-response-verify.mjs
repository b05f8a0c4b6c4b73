#!/usr/bin/env node
// The `attr-service-response-verify` command. Runs the TypeScript sources on Node >= 24 (node-24.mjs).
import { ensureNode24 } from './node-24.mjs';
await ensureNode24('attr-service-response-verify');
await import('../src/attr/verify/cli/response-verify-cli.ts');
