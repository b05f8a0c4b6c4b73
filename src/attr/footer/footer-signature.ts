/**
 * Ed25519 signatures over source footers (docs/decisions/136-signed-footers.md).
 *
 * The footer hash already binds every footer field, so the operator signs
 * only a short, domain-separated message naming the key and that hash:
 *
 *     attr-source-footer-signature/v1 \n <key_id> \n <footer_hash>
 *
 * The signature is not part of what the footer hash covers (it signs the
 * hash), and it is shown as the last line of the rendered footer so a copied
 * display text carries it. Verifiers check it against the deployment trust
 * store: the key id must be there, allowed `receipt_public_key`, and the
 * signature must verify under that key. A footer built by anyone else (for
 * example from a corpus that reuses a real source's URI with false text)
 * cannot carry a signature the operator's trust store accepts.
 */
import { createPrivateKey, createPublicKey, sign, verify, type KeyObject } from 'node:crypto';
import { sha256Hex } from '../../core/hashing.ts';
import type { FooterSignature } from '../schemas/attribution-response.ts';
import type { SignatureFinding } from '../schemas/signature-finding.ts';
import type { TrustStore } from '../trust-store/trust-store-schema.ts';

export const FOOTER_SIGNATURE_CONTEXT = 'attr-source-footer-signature/v1';
export const FOOTER_SIGNATURE_ALGORITHM = 'Ed25519';
/** The trust-store attestation type a key needs to sign footers. */
export const FOOTER_SIGNING_ATTESTATION = 'receipt_public_key';

export function footerSignatureMessage(keyId: string, footerHash: string): Buffer {
  return Buffer.from(`${FOOTER_SIGNATURE_CONTEXT}\n${keyId}\n${footerHash}`, 'utf8');
}

/** Signs footer hashes with one operator key. */
export interface FooterSigner {
  readonly keyId: string;
  readonly publicKey: KeyObject;
  sign(footerHash: string): FooterSignature;
}

/** Thrown when a signing key cannot be used; the message names the problem, never key material. */
export class FooterSigningKeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FooterSigningKeyError';
  }
}

/** A signer from a PKCS#8 PEM Ed25519 private key. */
export function createFooterSigner(privateKeyPem: string, keyId: string): FooterSigner {
  let key: KeyObject;
  try {
    key = createPrivateKey({ key: privateKeyPem, format: 'pem' });
  } catch {
    throw new FooterSigningKeyError('footer signing key does not parse as a PEM private key');
  }
  if (key.asymmetricKeyType !== 'ed25519') throw new FooterSigningKeyError(`footer signing key must be Ed25519, got ${key.asymmetricKeyType ?? 'unknown'}`);
  const publicKey = createPublicKey(key);
  return {
    keyId,
    publicKey,
    sign: (footerHash) => ({
      algorithm: FOOTER_SIGNATURE_ALGORITHM,
      key_id: keyId,
      value: sign(null, footerSignatureMessage(keyId, footerHash), key).toString('base64url'),
    }),
  };
}

export type SignatureCheck =
  | { valid: true; keyId: string; issuer: string }
  | { valid: false; code: 'signature_missing' | 'signature_key_unknown' | 'signature_key_not_allowed' | 'signature_invalid'; message: string; keyId: string | null };

/** Checks a footer's signature against a (validated) trust store. */
export function checkFooterSignature(footer: { footer_hash: string; signature: FooterSignature | null }, trustStore: TrustStore): SignatureCheck {
  const sig = footer.signature;
  if (sig === null) return { valid: false, code: 'signature_missing', message: 'the footer is not signed, so it cannot be tied to an operator in the trust store', keyId: null };
  const entry = trustStore.keys.find((k) => k.key_id === sig.key_id);
  if (entry === undefined) return { valid: false, code: 'signature_key_unknown', message: `signing key ${JSON.stringify(sig.key_id)} is not in the trust store`, keyId: sig.key_id };
  if (!entry.allowed_attestation_types.includes(FOOTER_SIGNING_ATTESTATION)) {
    return { valid: false, code: 'signature_key_not_allowed', message: `trust store key ${JSON.stringify(sig.key_id)} is not allowed ${FOOTER_SIGNING_ATTESTATION}`, keyId: sig.key_id };
  }
  let ok = false;
  try {
    const publicKey = createPublicKey({ key: entry.public_key_pem, format: 'pem' });
    ok = publicKey.asymmetricKeyType === 'ed25519' && verify(null, footerSignatureMessage(sig.key_id, footer.footer_hash), publicKey, Buffer.from(sig.value, 'base64url'));
  } catch {
    ok = false;
  }
  return ok
    ? { valid: true, keyId: sig.key_id, issuer: entry.issuer }
    : { valid: false, code: 'signature_invalid', message: `the signature does not verify under trust store key ${JSON.stringify(sig.key_id)}`, keyId: sig.key_id };
}

/**
 * Does the trust store publish this signer's public key for footer signing?
 * Used by the readiness gate with the trust store's validation report: a
 * deployment must not sign with a key its relying parties cannot check.
 * Returns a problem, or undefined when fine.
 */
export function signerTrustProblem(
  signer: FooterSigner,
  trustedKeys: readonly { key_id: string; spki_sha256: string | null; allowed_attestation_types: readonly string[] }[],
): string | undefined {
  const entry = trustedKeys.find((k) => k.key_id === signer.keyId);
  if (entry === undefined) return `footer signing key ${JSON.stringify(signer.keyId)} is not in the trust store`;
  if (!entry.allowed_attestation_types.includes(FOOTER_SIGNING_ATTESTATION)) return `trust store key ${JSON.stringify(signer.keyId)} is not allowed ${FOOTER_SIGNING_ATTESTATION}`;
  const own = sha256Hex(signer.publicKey.export({ type: 'spki', format: 'der' }));
  return own === entry.spki_sha256 ? undefined : `trust store key ${JSON.stringify(signer.keyId)} is not the public key of the configured signing key`;
}

/**
 * The verifier finding for a footer: without a trust store the signature is
 * reported but not checked (`valid: null`); with one, it must verify.
 */
export function signatureFinding(
  footer: { footer_hash: string; signature: FooterSignature | null },
  trustStore: TrustStore | undefined,
): { finding: SignatureFinding; problem: { code: string; message: string } | undefined } {
  const present = footer.signature !== null;
  const keyId = footer.signature?.key_id ?? null;
  if (trustStore === undefined) return { finding: { present, trust_store_checked: false, valid: null, key_id: keyId, issuer: null }, problem: undefined };
  const check = checkFooterSignature(footer, trustStore);
  return check.valid
    ? { finding: { present, trust_store_checked: true, valid: true, key_id: check.keyId, issuer: check.issuer }, problem: undefined }
    : { finding: { present, trust_store_checked: true, valid: false, key_id: keyId, issuer: null }, problem: { code: check.code, message: check.message } };
}
