/**
 * The AI gateway is a domain service: REST (src/svc/http), gRPC
 * (src/svc/grpc) and the CLI (src/svc/cli) adapt it, never the other way
 * round. This reads every non-test module under src/svc/ai and fails on an
 * import of a server framework or of an adapter layer.
 */
import assert from 'node:assert/strict';
import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const svcRoot = path.resolve(here, '..');
const ADAPTER_DIRS = ['http', 'grpc', 'cli'].map((d) => path.join(svcRoot, d) + path.sep);
const TRANSPORT_PACKAGES = /^(fastify|@fastify\/|@grpc\/|node:http2?$|node:https$)/;
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  return [...text.matchAll(IMPORT)].map((m) => m[1] ?? m[2]!);
}

/** The offending imports of one module: transport packages and relative paths into an adapter layer. */
function transportImports(file: string, specifiers: readonly string[]): string[] {
  return specifiers.filter((s) => {
    if (TRANSPORT_PACKAGES.test(s)) return true;
    if (!s.startsWith('.')) return false;
    const target = path.resolve(path.dirname(file), s);
    return ADAPTER_DIRS.some((dir) => target.startsWith(dir));
  });
}

test('no module of the AI domain imports a transport or an adapter layer', () => {
  const files = globSync('**/*.ts', { cwd: here }).filter((f) => !f.endsWith('.test.ts'));
  assert.ok(files.length > 20, `expected the AI modules, found ${files.length}`);
  const offences = files.flatMap((f) => {
    const file = path.join(here, f);
    return transportImports(file, importsOf(file)).map((s) => `${f} imports ${s}`);
  });
  assert.deepEqual(offences, []);
});

test('the boundary check catches what it is meant to catch', () => {
  const file = path.join(here, 'gateway', 'example.ts');
  assert.deepEqual(transportImports(file, ['fastify', '../../http/headers.ts', '../../grpc/x.ts', 'node:http', '../../errors.ts', 'undici', './ports.ts']), ['fastify', '../../http/headers.ts', '../../grpc/x.ts', 'node:http']);
});
