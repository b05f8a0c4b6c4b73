/**
 * A plugin bundle on disk (docs/plugins.md):
 *
 *   <dir>/manifest.json       the manifest, byte for byte as signed
 *   <dir>/manifest.json.sig   {"algorithm":"ed25519","publisher":…,"value":base64}
 *   <dir>/<every file the manifest lists>
 *
 * `readBundleDir` turns it into the install request (`svc plugin install`);
 * `signBundleDir` (tools/plugins/sign-plugin.ts) pins every file's digest in
 * the manifest and signs it with a publisher's private key.
 */
import { createHash, createPrivateKey, sign } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { PluginBundle, PluginSignature } from './plugin-manifest.ts';

export const MANIFEST_FILE = 'manifest.json';
export const SIGNATURE_FILE = 'manifest.json.sig';

export function readBundleDir(dir: string): PluginBundle {
  const manifestJson = readFileSync(path.join(dir, MANIFEST_FILE), 'utf8');
  let listed: string[];
  try {
    listed = Object.keys((JSON.parse(manifestJson) as { files?: Record<string, string> }).files ?? {});
  } catch {
    throw new Error(`${path.join(dir, MANIFEST_FILE)} is not JSON`);
  }
  const files: Record<string, string> = {};
  for (const rel of listed) {
    const full = path.resolve(dir, rel);
    if (!full.startsWith(path.resolve(dir) + path.sep)) throw new Error(`manifest file ${rel} is outside the bundle directory`);
    files[rel] = readFileSync(full).toString('base64');
  }
  const sigPath = path.join(dir, SIGNATURE_FILE);
  const signature = existsSync(sigPath) ? (JSON.parse(readFileSync(sigPath, 'utf8')) as PluginSignature) : undefined;
  return { manifest_json: manifestJson, ...(signature ? { signature } : {}), files };
}

/** Every file under `dir` except the manifest and its signature, as bundle paths. */
function bundleFiles(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const name of readdirSync(path.join(dir, prefix)).sort()) {
    const rel = prefix ? `${prefix}/${name}` : name;
    if (!prefix && (name === MANIFEST_FILE || name === SIGNATURE_FILE)) continue;
    if (statSync(path.join(dir, rel)).isDirectory()) out.push(...bundleFiles(dir, rel));
    else out.push(rel);
  }
  return out;
}

/**
 * Rewrites `manifest.json` with the SHA-256 of every file in the directory,
 * then signs its exact bytes with the Ed25519 private key (PEM) and writes
 * `manifest.json.sig`. The manifest's `publisher` must be the key's publisher.
 */
export function signBundleDir(dir: string, privateKeyPem: string): { manifest: Record<string, unknown>; signature: PluginSignature } {
  const manifest = JSON.parse(readFileSync(path.join(dir, MANIFEST_FILE), 'utf8')) as Record<string, unknown>;
  const files: Record<string, string> = {};
  for (const rel of bundleFiles(dir)) files[rel] = createHash('sha256').update(readFileSync(path.join(dir, rel))).digest('hex');
  manifest.files = files;
  const text = `${JSON.stringify(manifest, null, 2)}\n`;
  writeFileSync(path.join(dir, MANIFEST_FILE), text);
  const value = sign(null, Buffer.from(text, 'utf8'), createPrivateKey(privateKeyPem)).toString('base64');
  const signature: PluginSignature = { algorithm: 'ed25519', publisher: String(manifest.publisher), value };
  writeFileSync(path.join(dir, SIGNATURE_FILE), `${JSON.stringify(signature, null, 2)}\n`);
  return { manifest, signature };
}
