/**
 * Loads the configured footer signing key at start-up. A problem never
 * throws: the service comes up not-ready and /readyz names it (the
 * `footer_signing` readiness check), like every other start-up check.
 */
import { readFile, stat } from 'node:fs/promises';
import { createFooterSigner, FooterSigningKeyError, type FooterSigner } from './footer-signature.ts';

export type FooterSigningLoad = { ok: true; signer: FooterSigner } | { ok: false; problem: string };

export async function loadFooterSigner(signing: { keyId: string; privateKeyPath: string }): Promise<FooterSigningLoad> {
  let pem: string;
  try {
    const info = await stat(signing.privateKeyPath);
    if (!info.isFile()) return { ok: false, problem: `footer signing key ${signing.privateKeyPath} is not a file` };
    // Like ssh: a private key others can read is refused rather than used.
    if ((info.mode & 0o077) !== 0) return { ok: false, problem: `footer signing key ${signing.privateKeyPath} is readable by group or others (chmod 600)` };
    pem = await readFile(signing.privateKeyPath, 'utf8');
  } catch (err) {
    return { ok: false, problem: `footer signing key ${signing.privateKeyPath} cannot be read (${(err as NodeJS.ErrnoException).code ?? 'error'})` };
  }
  try {
    return { ok: true, signer: createFooterSigner(pem, signing.keyId) };
  } catch (err) {
    if (err instanceof FooterSigningKeyError) return { ok: false, problem: err.message };
    throw err;
  }
}
