#!/usr/bin/env node
// `attr-trust-store-validate`. Node >= 24 runs the TypeScript sources directly.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(`attr-trust-store-validate requires Node.js >= 24 (this is ${process.version}). See README.md: Requirements.`);
  process.exit(1);
}
const { runTrustStoreValidateCli } = await import('../src/attr/trust-store/trust-store-validate-cli.ts');
process.exitCode = await runTrustStoreValidateCli(process.argv.slice(2));
