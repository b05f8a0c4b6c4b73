#!/usr/bin/env node
// `attr-smoke`. Node >= 24 runs the TypeScript sources directly.
const major = Number(process.versions.node.split('.')[0]);
if (major < 24) {
  console.error(`attr-smoke requires Node.js >= 24 (this is ${process.version}). See README.md: Requirements.`);
  process.exit(1);
}
const { runSmokeCli } = await import('../src/attr/smoke/smoke-cli.ts');
process.exitCode = await runSmokeCli(process.argv.slice(2));
