// Every bin shim starts here. The TypeScript sources need Node.js >= 24
// (type stripping, node:sqlite, zstd in node:zlib). When a bin is started by
// an older system Node (a plain `./node_modules/.bin/svc`, or `npx svc` on a
// machine whose Node is 20), it re-runs itself on the Node 24 binary that
// `npm install` put in place (the `node` package, a dependency), forwarding
// arguments, stdio, signals and the exit status. Only when no such binary
// exists does it stop, with one line saying how to fix it.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

const REQUIRED_MAJOR = 24;

/** Resolves when this process already runs on Node >= 24; otherwise never resolves (the child's exit ends the process). */
export function ensureNode24(commandName) {
  const major = Number(process.versions.node.split('.')[0]);
  if (major >= REQUIRED_MAJOR) return Promise.resolve();
  const binary = findBundledNode();
  if (binary === undefined || process.env.SVC_NODE_REEXEC === '1') {
    console.error(`${commandName} requires Node.js >= ${REQUIRED_MAJOR} (this is ${process.version}); run \`npm install\` in the project (it installs Node ${REQUIRED_MAJOR} as a dependency) or put Node ${REQUIRED_MAJOR} on PATH.`);
    process.exit(1);
  }
  const child = spawn(binary, [...process.execArgv, ...process.argv.slice(1)], {
    stdio: 'inherit',
    env: { ...process.env, SVC_NODE_REEXEC: '1' },
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
    process.on(signal, () => child.kill(signal));
  }
  child.on('exit', (code, signal) => {
    if (signal !== null) process.kill(process.pid, signal);
    process.exit(code ?? 1);
  });
  return new Promise(() => {});
}

function findBundledNode() {
  try {
    const pkg = createRequire(import.meta.url).resolve('node/package.json');
    const candidate = join(dirname(pkg), 'bin', 'node');
    return existsSync(candidate) ? candidate : undefined;
  } catch {
    return undefined;
  }
}
