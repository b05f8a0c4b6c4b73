#!/usr/bin/env node
// `attr-service-audit-rotate`. Runs the TypeScript sources on Node >= 24 (node-24.mjs).
import { ensureNode24 } from './node-24.mjs';
await ensureNode24('attr-service-audit-rotate');
const { runAuditRotateCli } = await import('../src/attr/audit/audit-rotate-cli.ts');
process.exitCode = await runAuditRotateCli(process.argv.slice(2));
