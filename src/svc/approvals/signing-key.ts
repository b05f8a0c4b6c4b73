/**
 * The server's approval-signing key: Ed25519, kept in the state directory as
 * JWK files. The private key file is created with mode 0600 and never leaves
 * the server; the public key is published (`GET /v1/approvals/public-key`) so
 * anyone can verify an approval offline. Created by `svc init` or on first use.
 *
 *   <stateDir>/keys/approvals-ed25519.private.jwk   (0600)
 *   <stateDir>/keys/approvals-ed25519.public.jwk    (0644)
 */
import { createPrivateKey, createPublicKey, generateKeyPairSync, type KeyObject } from 'node:crypto';
import { chmod, mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { calculateJwkThumbprint, type JWK } from 'jose';

export interface ApprovalSigningKey {
  privateKey: KeyObject;
  publicKey: KeyObject;
  /** Public JWK with `kid` (RFC 7638 thumbprint), `alg: EdDSA`, `use: sig`. */
  publicJwk: JWK;
  kid: string;
}

export function signingKeyPaths(stateDir: string): { privatePath: string; publicPath: string } {
  const dir = path.join(stateDir, 'keys');
  return { privatePath: path.join(dir, 'approvals-ed25519.private.jwk'), publicPath: path.join(dir, 'approvals-ed25519.public.jwk') };
}

async function fromPrivateJwk(jwk: JWK): Promise<ApprovalSigningKey> {
  const privateKey = createPrivateKey({ key: jwk as import('node:crypto').JsonWebKey, format: 'jwk' });
  const publicKey = createPublicKey(privateKey);
  const exported = publicKey.export({ format: 'jwk' }) as JWK;
  const kid = await calculateJwkThumbprint(exported);
  return { privateKey, publicKey, publicJwk: { ...exported, kid, alg: 'EdDSA', use: 'sig' }, kid };
}

/**
 * Loads the key, creating it when absent. Creation uses an exclusive open
 * (`wx`), so two processes starting together end up with the same key. A
 * private key file readable by group or others is refused rather than used.
 */
export async function loadOrCreateSigningKey(stateDir: string): Promise<ApprovalSigningKey> {
  const { privatePath, publicPath } = signingKeyPaths(stateDir);
  await mkdir(path.dirname(privatePath), { recursive: true, mode: 0o700 });
  try {
    const { privateKey } = generateKeyPairSync('ed25519');
    const jwk = privateKey.export({ format: 'jwk' }) as JWK;
    await writeFile(privatePath, `${JSON.stringify(jwk)}\n`, { flag: 'wx', mode: 0o600 });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  }
  const info = await stat(privatePath);
  if ((info.mode & 0o077) !== 0) {
    throw new Error(`approval signing key ${privatePath} is readable by others (mode ${(info.mode & 0o777).toString(8)}); chmod 600 it`);
  }
  const key = await fromPrivateJwk(JSON.parse(await readFile(privatePath, 'utf8')) as JWK);
  await writeFile(publicPath, `${JSON.stringify(key.publicJwk, null, 2)}\n`, { mode: 0o644 });
  await chmod(publicPath, 0o644);
  return key;
}
