#!/usr/bin/env node
// The `svc` command. Runs the TypeScript sources on Node >= 24 (node-24.mjs).
import module from 'node:module';
import { ensureNode24 } from './node-24.mjs';
await ensureNode24('svc');
// Node's on-disk compile cache (type-stripped sources and V8 code, validated
// by content hash; default directory under the OS temp dir, NODE_COMPILE_CACHE
// overrides it, NODE_DISABLE_COMPILE_CACHE=1 turns it off): every CLI
// invocation after the first starts ~40% faster.
module.enableCompileCache?.();
await import('../src/svc/cli/main.ts');
