/**
 * svc's trust list of plugin publishers (`plugins.trusted_publishers`):
 * publisher name → Ed25519 public key, given as PEM (SPKI) or as the raw
 * 32-byte key in base64. Built once at start; a key that does not parse stops
 * start-up with a configuration error rather than silently trusting nobody.
 */
import { createPublicKey, type KeyObject } from 'node:crypto';

/** DER prefix of an Ed25519 SubjectPublicKeyInfo; the raw 32-byte key follows it. */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');

export type TrustList = ReadonlyMap<string, KeyObject>;

export function parseEd25519PublicKey(text: string): KeyObject {
  const trimmed = text.trim();
  const key = trimmed.startsWith('-----BEGIN')
    ? createPublicKey(trimmed)
    : (() => {
        const raw = Buffer.from(trimmed, 'base64');
        if (raw.length !== 32) throw new Error('expected PEM or the 32-byte raw key in base64');
        return createPublicKey({ key: Buffer.concat([ED25519_SPKI_PREFIX, raw]), format: 'der', type: 'spki' });
      })();
  if (key.asymmetricKeyType !== 'ed25519') throw new Error(`expected an Ed25519 key, got ${key.asymmetricKeyType ?? 'unknown'}`);
  return key;
}

/** The raw 32-byte public key in base64 (the form `svc plugin keygen` prints for the config). */
export function rawPublicKeyBase64(key: KeyObject): string {
  const der = key.export({ format: 'der', type: 'spki' });
  return Buffer.from(der.subarray(ED25519_SPKI_PREFIX.length)).toString('base64');
}

export function buildTrustList(publishers: Readonly<Record<string, string>>): TrustList {
  const out = new Map<string, KeyObject>();
  for (const [name, text] of Object.entries(publishers)) {
    try {
      out.set(name, parseEd25519PublicKey(text));
    } catch (err) {
      throw new Error(`plugins.trusted_publishers.${name}: ${(err as Error).message}`);
    }
  }
  return out;
}
