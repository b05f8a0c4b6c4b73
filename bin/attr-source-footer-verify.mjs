#!/usr/bin/env node
// The `attr-source-footer-verify` command. Node >= 24 runs the TypeScript sources directly.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(`attr-source-footer-verify requires Node.js >= 24 (this is ${process.version}). See README.md: Requirements.`);
  process.exit(1);
}
await import('../src/attr/verify/cli/footer-verify-cli.ts');
