/**
 * Test fixtures for plugin bundles: publisher keys made per run, bundle
 * directories copied from examples/plugins (or written inline) and signed
 * with the same code users run (src/svc/plugins/bundle-dir.ts).
 */
import { generateKeyPairSync } from 'node:crypto';
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readBundleDir, signBundleDir } from '../../src/svc/plugins/bundle-dir.ts';
import type { PluginBundle } from '../../src/svc/plugins/plugin-manifest.ts';
import { rawPublicKeyBase64 } from '../../src/svc/plugins/trust-list.ts';

export const EXAMPLES = path.resolve(import.meta.dirname, '../../examples/plugins');

export interface Publisher {
  name: string;
  privatePem: string;
  /** The raw public key (base64), as plugins.trusted_publishers takes it. */
  publicKey: string;
}

export function publisher(name: string): Publisher {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return { name, privatePem: privateKey.export({ format: 'pem', type: 'pkcs8' }).toString(), publicKey: rawPublicKeyBase64(publicKey) };
}

const scratch = mkdtempSync(path.join(os.tmpdir(), 'svc-plugins-'));
let n = 0;

/** A copy of an example plugin directory (unsigned). */
export function exampleDir(example: string): string {
  const dir = path.join(scratch, `${example}-${(n += 1)}`);
  cpSync(path.join(EXAMPLES, example), dir, { recursive: true });
  return dir;
}

/** A bundle directory with an inline entry, for plugins the examples do not cover (endless loops, allocations). */
export function inlineDir(manifest: Record<string, unknown>, code: string): string {
  const dir = path.join(scratch, `inline-${(n += 1)}`);
  mkdirSync(dir);
  writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({ schema: 'svc.plugin/v1', capabilities: ['bytes.read'], entry: 'plugin.js', files: {}, ...manifest }));
  writeFileSync(path.join(dir, 'plugin.js'), code);
  return dir;
}

export function signed(dir: string, by: Publisher): PluginBundle {
  signBundleDir(dir, by.privatePem);
  return readBundleDir(dir);
}
