#!/usr/bin/env node
// The `svc` command. Runs the TypeScript sources on Node >= 24 (node-24.mjs).
import { ensureNode24 } from './node-24.mjs';
await ensureNode24('svc');
await import('../src/svc/cli/main.ts');
