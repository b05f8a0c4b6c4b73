#!/usr/bin/env node
// `attr-service-audit-verify`. Runs the TypeScript sources on Node >= 24 (node-24.mjs).
import { ensureNode24 } from './node-24.mjs';
await ensureNode24('attr-service-audit-verify');
const { runAuditVerifyCli } = await import('../src/attr/audit/audit-verify-cli.ts');
process.exitCode = await runAuditVerifyCli(process.argv.slice(2));
