#!/usr/bin/env node
/**
 * Signs a plugin bundle directory with a publisher's local Ed25519 key
 * (docs/plugins.md). Two commands:
 *
 *   node tools/plugins/sign-plugin.ts keygen <publisher> [--out <dir>]
 *       writes <publisher>.key.pem (0600) and <publisher>.pub.pem, and prints the
 *       line to put under plugins.trusted_publishers in svc's config
 *   node tools/plugins/sign-plugin.ts sign <bundle-dir> --key <publisher>.key.pem
 *       pins the SHA-256 of every file in manifest.json, signs it, writes manifest.json.sig
 *
 * Keep the private key off the servers: svc only ever needs the public key.
 */
import { createPublicKey, generateKeyPairSync } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { signBundleDir } from '../../src/svc/plugins/bundle-dir.ts';
import { rawPublicKeyBase64 } from '../../src/svc/plugins/trust-list.ts';

const USAGE = 'usage: sign-plugin.ts keygen <publisher> [--out <dir>] | sign <bundle-dir> --key <private.pem>';

function main(argv: string[]): number {
  const { positionals, values } = parseArgs({ args: argv, allowPositionals: true, options: { out: { type: 'string', default: '.' }, key: { type: 'string' } } });
  const [command, target] = positionals;
  if (command === 'keygen' && target && /^[a-z][a-z0-9-]{0,31}$/.test(target)) {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const keyPath = path.join(values.out ?? '.', `${target}.key.pem`);
    writeFileSync(keyPath, privateKey.export({ format: 'pem', type: 'pkcs8' }), { mode: 0o600, flag: 'wx' });
    writeFileSync(path.join(values.out ?? '.', `${target}.pub.pem`), publicKey.export({ format: 'pem', type: 'spki' }));
    console.log(`wrote ${keyPath} (keep it secret) and ${target}.pub.pem`);
    console.log(`svc config:  plugins: { trusted_publishers: { ${target}: "${rawPublicKeyBase64(publicKey)}" } }`);
    return 0;
  }
  if (command === 'sign' && target && values.key) {
    const pem = readFileSync(values.key, 'utf8');
    const { manifest, signature } = signBundleDir(target, pem);
    const pub = rawPublicKeyBase64(createPublicKey(pem));
    console.log(`signed ${String(manifest.id)}@${String(manifest.version)} as ${signature.publisher} (public key ${pub}); ${Object.keys(manifest.files as object).length} file(s) pinned`);
    return 0;
  }
  console.error(USAGE);
  return 2;
}

process.exitCode = main(process.argv.slice(2));
