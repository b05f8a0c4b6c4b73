#!/usr/bin/env node
// `attr-service`. Node >= 24 runs the TypeScript sources directly.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(`attr-service requires Node.js >= 24 (this is ${process.version}). See README.md: Requirements.`);
  process.exit(1);
}
const { runServiceCli } = await import('../src/attr/service/service-cli.ts');
process.exitCode = await runServiceCli(process.argv.slice(2));
