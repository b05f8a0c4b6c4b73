#!/usr/bin/env node
// `attr-service-config`. Node >= 24 runs the TypeScript sources directly.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(`attr-service-config requires Node.js >= 24 (this is ${process.version}). See README.md: Requirements.`);
  process.exit(1);
}
const { runConfigCli } = await import('../src/attr/config/config-cli.ts');
process.exitCode = await runConfigCli(process.argv.slice(2));
