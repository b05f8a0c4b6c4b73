#!/usr/bin/env node
// `attr-service-audit-verify`. Node >= 24 runs the TypeScript sources directly.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(`attr-service-audit-verify requires Node.js >= 24 (this is ${process.version}). See README.md: Requirements.`);
  process.exit(1);
}
const { runAuditVerifyCli } = await import('../src/attr/audit/audit-verify-cli.ts');
process.exitCode = await runAuditVerifyCli(process.argv.slice(2));
